// --- decisions: whom the fight waits for, and the choices that are the viewer's (issues 11, 21) --
// GET …/decisions lists the open decisions the viewer may answer (a player: its characters';
// the Host: all) and whom the fight waits for; POST …/decisions/{id} {choice} answers one.
// A player answers each decision with one press. The Host gets one card per waiting command
// gathering its questions, each preset to its suggestion, sent together with one *Apply*.
// Options read in the game's words with their effect; ruling ids stay behind *Details* (W-40).
const HOST = boot.role === 'host';
const CHOICE_WORDS = {reaction: 'Reaction', skill_reaction: 'Reaction', adjustments: 'Adjustments',
  obstruction: 'Obstruction tokens', approve: 'approval', dice: 'dice',
  interpose: 'answer: interpose or not', aoo: 'Attack of Opportunity',
  stand_ready: 'Stand Ready'};
const percent = p => { const x = 100 * p;
  return (x > 0 && x < 1 ? x.toFixed(1) : x > 99 && x < 100 ? '99' : Math.round(x)) + ' %'; };
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
// the suggested option (none when the suggestion follows values secret to the viewer); a
// player's modifier: Approve is suggested (issue 21), the Host decides
function suggests(d, o) {
  if (d.kind === 'approve') return o.value === true || o.value === 'approve';
  return !d.suggested_hidden && d.suggested !== undefined && same(o.value, d.suggested);
}
// "Aldric's Reaction", "the Host's approval of Jackal's Strike"
function what(d) {
  if (!d.kind) return d.waiting_for || 'an answer';  // a hidden command's: "the Host"
  const word = CHOICE_WORDS[d.kind] || words(d.kind);
  if (d.kind === 'approve') return "the Host's approval of " + (d.combatant ? d.combatant +
    "'s proposal" : 'a proposal');
  return d.combatant ? d.combatant + "'s " + word : "the Host's " + word;
}
// --- plain words: ruling ids out of the text (kept for Details), no JSON ---------------------
const RULINGS = /\s*\(((?:[A-Z]{1,3}-\d+[a-z]?)(?:\s*(?:,|;|and)\s*[A-Z]{1,3}-\d+[a-z]?)*)\)/g;
function plain(text, ids) {
  const said = String(text === null || text === undefined ? '' : text).replace(RULINGS,
    (_m, group) => { if (ids) ids.push(...group.split(/\s*(?:,|;|and)\s*/)); return ''; });
  return said.replace(/\s+([?.,:;])/g, '$1').trim();
}
const jsonish = t => typeof t === 'string' && /^\s*[[{]/.test(t);
function changes(from, to) {  // "die 3, 4 → 3; die 5, 2 → 3"
  const moved = [];
  (to || []).forEach((f, i) => { if (from && from[i] !== f) moved.push('die ' + (i + 1) + ', ' +
    from[i] + ' → ' + f); });
  return moved.join('; ');
}
const natural = d => (d.dice && Array.isArray(d.dice.natural) ? d.dice.natural : null) ||
  (Array.isArray(d.dice) ? d.dice : null) || (((d.options || []).find(o => o.outcome &&
  Array.isArray(o.outcome.natural)) || {}).outcome || {}).natural || null;
function adjustmentWords(d, o) {
  const mode = o.value && typeof o.value === 'object' ? o.value.mode : o.value;
  const who = d.combatant || 'you';
  const label = typeof o.label === 'string' && o.label !== SECRET && !jsonish(o.label) &&
    !/^(best|none|explicit)\b/.test(o.label) ? plain(o.label) : '';
  const final = o.outcome && o.outcome.final, moved = changes(natural(d), final);
  if (label) return label + (mode === 'best' && moved && !o.effect ? ': ' + moved : '');
  if (mode === 'best') return 'Best for ' + who + (moved ? ': ' + moved : ': the dice stand');
  if (mode === 'none') return 'No Adjustments';
  if (mode === 'explicit') return 'Choose dice…';
  return words(String(mode));
}
function valueWords(d, v) {
  if (d.kind === 'obstruction' && typeof v === 'number')
    return v === 0 ? 'No Obstruction tokens' : 'Spend ' + v + ' Obstruction token' +
      (v === 1 ? '' : 's');
  if (d.kind === 'approve') return v === true || v === 'approve' ? 'Approve' : v === false ||
    v === 'reject' ? 'Reject' : valueText(v);
  if (v === null || v === undefined) return d.kind === 'dice' ? 'the server rolls them'
    : 'No Reaction';
  return valueText(v);
}
function valueText(v) {
  if (v === null || v === undefined) return 'no Reaction';
  if (v === true) return 'yes';
  if (v === false) return 'no';
  if (Array.isArray(v)) return v.join(' ');
  if (typeof v === 'object') {
    if (v.mode === 'explicit') return Array.isArray(v.steps) && v.steps.length ? 'these ' +
      'Adjustments: ' + v.steps.map(s => 'die ' + (s.die + 1) + (s.delta > 0 ? ' +1' : ' −1'))
      .join(', ') : 'no Adjustments';
    if (v.mode === 'best') return 'the best Adjustments';
    if (v.mode === 'none') return 'no Adjustments';
    return Object.values(v).map(x => words(String(x))).join(', ');
  }
  return words(String(v));
}
const SECRET = 'secret';  // a text a player may not read (W-9): said another way, or not at all
function optionText(d, o, ids) {
  let text;
  if (d.kind === 'dice' && o.count) text = o.count + 'd' + o.sides + ': let the server roll them';
  else if (d.kind === 'adjustments') text = adjustmentWords(d, o);
  else if (typeof o.label === 'string' && o.label !== SECRET && !jsonish(o.label) &&
    o.label !== String(o.value)) text = plain(o.label, ids);
  else text = valueWords(d, o.value);
  if (typeof o.effect === 'string' && o.effect && o.effect !== SECRET) text += ': ' +
    plain(o.effect, ids);
  const odds = o.odds;
  if (odds) {
    const bits = [];
    if (odds.hit) bits.push(percent(odds.hit.p) + ' to be hit');
    if (odds.pass) bits.push(percent(odds.pass.p) + ' to pass');
    if (odds.damage) bits.push(percent(odds.damage.p) + ' to take damage');
    if (typeof odds.mean_damage === 'number') bits.push(odds.mean_damage.toFixed(1) +
      ' damage on average');
    if (odds.defeat && odds.defeat.p > 0) bits.push(percent(odds.defeat.p) + ' to go down');
    if (bits.length) text += ': ' + bits.join(', ');
  }
  if (suggests(d, o)) text += ' (suggested)';
  return text;
}
function secondsLeft(deadline) {
  return Math.max(0, Math.ceil(deadline - Date.now() / 1000));
}
function countdown(deadline) {  // its text changes every second: not announced (aria-live off)
  const span = el('span', '', 'countdown'); span.dataset.deadline = String(deadline);
  span.setAttribute('aria-live', 'off'); tickOne(span); return span;
}
function tickOne(span) {
  const left = secondsLeft(Number(span.dataset.deadline));
  span.textContent = left > 0 ? ' — ' + left + ' s left, then the suggestion is taken'
    : ' — time is up: the suggestion is taken';
}
let decisionsSeen = null, decisionsAsked = 0, overdue = false;
setInterval(() => {
  let due = false;
  for (const span of document.querySelectorAll('#decisions .countdown')) {
    tickOne(span); if (secondsLeft(Number(span.dataset.deadline)) === 0) due = true;
  }
  if (due && !overdue) { overdue = true; setTimeout(loadDecisions, 1000); }
}, 1000);
// whose choice it is: "Aldric's player (Bea)" or "the Host" (waiting_for: "<owner>: <what>")
const owner = d => String(d.waiting_for || '').split(': ')[0];
const mineToo = d => !HOST || owner(d) === 'the Host' || !owner(d);
// --- the banner: everyone sees whom the fight waits for, and who decides -----------------
function banner(waiting) {
  const p = $('waiting'); p.replaceChildren();
  if (!waiting.length) { p.textContent = 'Nobody is deciding anything: the fight goes on.';
    p.className = ''; return; }
  p.className = 'waiting';
  waiting.forEach((d, i) => {
    if (i) p.append(el('span', '; '));
    p.append(el('span', (i ? 'w' : 'W') + 'aiting for ' + what(d) +
      (d.kind && d.kind !== 'approve' && owner(d) ? ': ' + owner(d) : '')));
    if (d.note) p.append(el('span', ' (' + plain(d.note) + ')', 'moved'));
    if (d.deadline !== null && d.deadline !== undefined) p.append(countdown(d.deadline));
  });
}
// --- one question: its prompt, the dice rolled, its options ----------------------------------
function chips(label, faces) {
  const p = el('p', label + ' ', 'dice');
  faces.forEach((f, i) => { if (i) p.append(' '); p.append(el('span', String(f), 'chip')); });
  return p;
}
function promptText(d, first, ids) {
  const input = d.input || {};
  if (d.kind === 'dice' && input.type === 'dice') return (d.combatant ? d.combatant + ': ' : '') +
    'roll ' + input.count + 'd' + input.sides + ' and enter the faces.' + (input.for ? ' It is for ' +
    plain(input.for, ids) + '.' : '');
  if (d.kind === 'dice' && first.count) {
    const said = d.prompt && d.prompt !== SECRET ? plain(d.prompt, ids) : '';
    const purpose = /\bfor (.+?) and enter/.exec(said);  // "… roll 1d20 for the hit roll of …"
    return (d.combatant ? d.combatant + ': ' : '') + 'roll ' + first.count + 'd' + first.sides +
      ' and enter the faces.' + (purpose ? ' It is for ' + purpose[1] + '.' : '');
  }
  return d.prompt === SECRET ? '' : plain(d.prompt || '', ids);
}
function panel(d, picks) {
  const box = document.createElement('section'); box.className = 'decision';
  box.id = 'decision-' + d.id; box.dataset.kind = d.kind;
  const other = HOST && owner(d) && owner(d) !== 'the Host';  // the Host may answer any
  const head = el('h3', d.kind === 'approve' ? plain(d.title || 'Approve a proposal?') : (other ?
    'Answer for ' + owner(d) + ': ' : 'Your decision: ') + plain(d.title || what(d)));
  head.id = 'decision-' + d.id + '-title'; box.setAttribute('aria-labelledby', head.id);
  const first = (d.options || [])[0] || {}, ids = [];
  if (d.details && Array.isArray(d.details.rules)) ids.push(...d.details.rules);
  box.append(head, el('p', promptText(d, first, ids), 'prompt'));
  if (other) box.append(el('p', owner(d) + ' is asked; answer here only to decide for them.',
    'note who'));
  else if (d.decided_by) box.append(el('p', 'Decided by ' + d.decided_by + '.', 'note who'));
  if (d.deadline !== null && d.deadline !== undefined) box.append(countdown(d.deadline));
  const rolled = natural(d);
  if (Array.isArray(rolled) && rolled.length && d.kind !== 'approve')
    box.append(chips('Dice rolled' + (d.dice && d.dice.for ? ' (' + plain(d.dice.for) + ')' : '') +
      ':', rolled));
  const group = document.createElement('div'); group.className = 'options';
  group.setAttribute('role', 'group'); group.setAttribute('aria-labelledby', head.id);
  const choosing = picks !== null && d.kind !== 'dice';
  let picker = null;
  for (const o of d.options || []) {
    const explicit = d.kind === 'adjustments' && o.value && o.value.mode === 'explicit';
    if (explicit) picker = diePicker(d, rolled, o, picks);
    const b = optionButton(d, o, ids, {group, picks, choosing, picker: explicit ? picker : null});
    if (d.kind === 'adjustments' && o.outcome && o.outcome.final && !explicit) {
      const item = document.createElement('div'); item.className = 'option';
      item.append(b, chips('final dice:', o.outcome.final)); group.append(item);
    } else group.append(b);
  }
  box.append(group);
  if (picker) box.append(picker);
  if (choosing && mineToo(d)) {  // the Host's own question: preset to its suggestion
    const start = [...group.querySelectorAll('button[aria-pressed]')].find(b =>
      b.classList.contains('suggested'));
    if (start) pickOne(group, start, picks, d, JSON.parse(start.dataset.value));
  }
  const hidden = d.suggested_hidden || (d.options || []).map(o => o.odds_hidden).find(x => x);
  if (hidden) box.append(el('p', 'No odds or suggestion here: ' + plain(hidden, ids), 'note'));
  if (d.kind === 'dice') box.append(diceEntry(d, first));
  box.append(details(d, ids));
  return box;
}
// one option's button: it opens the die picker, picks (the Host's card) or answers at once
function optionButton(d, o, ids, how) {
  const b = el('button', optionText(d, o, ids), suggests(d, o) ? 'suggested' : '');
  b.type = 'button'; b.dataset.value = JSON.stringify(o.value);
  if (how.picker) {
    const picker = how.picker;
    b.setAttribute('aria-expanded', 'false'); b.setAttribute('aria-controls', picker.id);
    b.addEventListener('click', () => { picker.hidden = !picker.hidden;
      b.setAttribute('aria-expanded', String(!picker.hidden)); });
  } else if (how.choosing) {
    b.setAttribute('aria-pressed', 'false');
    b.addEventListener('click', () => pickOne(how.group, b, how.picks, d, o.value));
  } else b.addEventListener('click', () => decide(d, o.value));
  return b;
}
function pickOne(group, button, picks, d, value) {
  for (const b of group.querySelectorAll('button[aria-pressed]'))
    b.setAttribute('aria-pressed', String(b === button));
  picks.set(d.id, {d: d, value: value});
}
function details(d, ids) {  // the ruling ids and the decision's id, out of the way
  const more = el('details', '', 'more'); more.append(el('summary', 'Details'));
  const found = [...new Set(ids)];
  more.append(el('p', (found.length ? 'Rulings: ' + found.join(', ') + '. ' : '') +
    'Decision ' + d.id + (d.key ? ' (' + d.key + ')' : '') + '.'));
  return more;
}
// --- "Choose dice…": a die picker for explicit Adjustments (one step: one die ±1) -----------
function diePicker(d, rolled, option, picks) {
  const box = el('fieldset', '', 'picker'); box.id = 'picker-' + d.id; box.hidden = true;
  box.append(el('legend', 'Choose the Adjustments die by die'));
  const limit = Number.isInteger(option.available) ? option.available : null;
  const faces = Array.isArray(rolled) ? rolled : [], delta = faces.map(() => 0);
  const used = el('p', '', 'note'); used.setAttribute('aria-live', 'polite');
  const total = () => delta.reduce((a, x) => a + Math.abs(x), 0);
  const say = () => { used.textContent = total() + (limit === null ? '' : ' of ' + limit) +
    ' Adjustment' + (total() === 1 ? '' : 's') + ' chosen.'; };
  faces.forEach((face, i) => {
    const row = el('div', '', 'die-row'), shown = el('output', String(face), 'chip');
    shown.id = box.id + '-die-' + i;
    const name = el('span', 'Die ' + (i + 1) + ': ' + face + ' → ');
    const step = (by, text, label) => { const b = el('button', text); b.type = 'button';
      b.setAttribute('aria-label', label + ' die ' + (i + 1));
      b.addEventListener('click', () => {
        const next = delta[i] + by, value = face + next;
        if (value < 1 || value > 12) return;
        if (limit !== null && Math.abs(next) > Math.abs(delta[i]) && total() >= limit) {
          used.textContent = 'No Adjustment is left: ' + limit + ' at most.'; return; }
        delta[i] = next; shown.textContent = String(value); say(); });
      return b; };
    row.append(name, shown, step(-1, '−', 'Lower'), step(1, '+', 'Raise'));
    box.append(row);
  });
  say(); box.append(used);
  const steps = () => delta.flatMap((x, i) => Array(Math.abs(x)).fill({die: i,
    delta: x > 0 ? 1 : -1}));
  const go = el('button', picks === null ? 'Send these Adjustments' : 'Use these Adjustments');
  go.type = 'button';
  go.addEventListener('click', () => {
    const value = {...option.value, steps: steps()};
    if (picks === null) { decide(d, value); return; }
    const group = box.parentNode.querySelector('.options');
    for (const b of group.querySelectorAll('button[aria-pressed]'))
      b.setAttribute('aria-pressed', 'false');
    picks.set(d.id, {d: d, value: value});
    used.textContent = 'Chosen: ' + valueText(value) + '. Apply sends it.';
  });
  box.append(go);
  return box;
}
function diceEntry(d, stage) {  // staged physical dice: the roller types this stage's faces
  const form = document.createElement('form'); form.className = 'dice-entry';
  const said = /(\d+)d(\d+)/.exec(String(stage.label || '')) || [];  // "2d100: the server …"
  const input = d.input && d.input.type === 'dice' ? d.input : {};
  const count = Number(input.count || stage.count || said[1]) || 1;
  const sides = Number(input.sides || stage.sides || said[2]) || 100;
  const boxes = [];
  for (let i = 0; i < count; i++) {
    const box = el('input'); box.type = 'number'; box.min = '1'; box.max = String(sides);
    box.required = true; box.inputMode = 'numeric'; box.className = 'die';
    const label = el('label', 'Die ' + (i + 1) + ' of ' + count + ' (d' + sides + ') ');
    label.append(box); form.append(label); boxes.push(box);
  }
  const send = el('button', 'Send my dice'); send.type = 'submit'; form.append(send);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const faces = boxes.map(b => Number(b.value));
    if (!faces.every(f => Number.isInteger(f) && f >= 1 && f <= sides)) {
      report('Each die is a whole number from 1 to ' + sides + ', not "' +
        boxes.map(b => b.value).join(', ') + '".'); return;
    }
    decide(d, faces);
  });
  return form;
}
// --- the Host's card: one per waiting command, every question in it, one Apply ---------------
function commandWords(d) {
  const c = d.command || {}, a = c.args || {};
  const actor = a.striker || a.attacker || a.caster || a.id;
  const target = a.defender || (Array.isArray(a.attacks) && a.attacks[0] &&
    a.attacks[0].defender);
  return c.kind ? (actor && actor !== SECRET ? actor + "'s " : '') + words(c.kind) +
    (target && target !== SECRET ? ' on ' + target : '') : 'A command';
}
function hostCard(seq, questions, about) {
  const card = document.createElement('section'); card.className = 'decision-card';
  card.id = 'card-' + seq;
  const title = about && about.title ? plain(about.title) : commandWords(questions[0]);
  const head = el('p', title + ' waits for ' + questions.map(what).join(', ') + '.',
    'card-head');
  head.id = card.id + '-head'; card.setAttribute('aria-labelledby', head.id);
  const picks = new Map();
  card.append(head, ...questions.map(d => panel(d, picks)));
  const apply = el('button', 'Apply', 'apply go'); apply.type = 'button'; apply.id = 'apply-' + seq;
  const said = el('p', '', 'note'); said.setAttribute('role', 'status');
  apply.addEventListener('click', () => applyAll(questions, picks, said, !!about));
  card.append(apply, said);
  return card;
}
async function applyAll(questions, picks, said, together) {
  const missing = questions.filter(d => mineToo(d) && d.kind !== 'dice' && !picks.has(d.id));
  if (missing.length) { said.textContent = 'Choose an answer for ' + missing.map(what)
    .join(' and ') + ' first.'; return; }
  const chosen = questions.filter(d => picks.has(d.id)).map(d => picks.get(d.id));
  if (!chosen.length) { said.textContent = 'Nothing is chosen: the players are asked.'; return; }
  said.textContent = '';
  if (together) {  // all or nothing: one request (a refusal writes nothing)
    const answers = {};
    for (const {d, value} of chosen) answers[d.id] = value;
    const r = await reach(api + '/decisions', {method: 'POST', headers: auth,
      body: JSON.stringify({answers: answers})});
    if (!r) { said.textContent = 'Not sent: the server cannot be reached.'; return; }
    const answer = await jsonOf(r);
    report(r.ok ? '' : answer.error);
    if (r.ok) $('decision-status').textContent = 'Sent: ' + chosen.map(({d, value}) => what(d) +
      ', ' + chosenWords(d, value)).join('; ') + '.';
    loadDecisions(); return;
  }
  for (const {d, value} of chosen) {
    const ok = await decide(d, value, true);
    if (!ok) { loadDecisions(); return; }
  }
  loadDecisions();
}
// a player's own decision answered by someone else is said (W-40): the Host, a deadline
let shownMine = new Map();
const answeredHere = new Set();
onRecord(r => {
  const a = r.kind === 'answer' && r.data && r.data.answer;
  const d = a && shownMine.get(a.request);
  if (HOST || !d || answeredHere.has(a.request)) return;
  const chosen = chosenWords(d, a.value);
  if (a.by === 'host') $('decision-status').textContent = 'The Host decided ' + what(d) +
    ' for you: ' + chosen + '.';
  else if (a.by === 'timeout' || a.by === 'auto') $('decision-status').textContent =
    (a.by === 'timeout' ? 'Time ran out for ' : 'Taken automatically for ') + what(d) +
    ': the suggestion, ' + chosen + '.';
});
// an answer in the words of its option ("1 Obstruction token"), else in words of its value
function chosenWords(d, value) {
  const o = (d.options || []).find(x => same(x.value, value));
  return o && typeof o.label === 'string' && o.label !== SECRET && !jsonish(o.label) &&
    o.label !== String(o.value) ? plain(o.label) : valueWords(d, value);
}
function showDecisions(mine, waiting, cards) {
  banner(waiting);
  if (!HOST) shownMine = new Map(mine.map(d => [d.id, d]));
  // nobody deciding: the part keeps out of the way (W-37); the viewer's own: framed, on top
  $('decisions').classList.toggle('idle', !waiting.length && !mine.length);
  $('decisions').classList.toggle('yours', mine.length > 0);
  const seen = JSON.stringify(mine);
  if (seen === decisionsSeen) return;  // unchanged: no new announcement, no lost typing
  decisionsSeen = seen;
  // a panel still open stays as it is (focus and typing kept); answered ones go, new ones come
  const list = $('decision-panels'), kept = new Map();
  for (const box of list.children) kept.set(box.dataset.seen, box);
  const about = seq => (cards || []).find(c => String(c.seq) === seq) || null;
  const parts = HOST ? [...groupBySeq(mine)].map(([seq, qs]) => [JSON.stringify(qs),
    () => hostCard(seq, qs, about(seq))]) : mine.map(d => [JSON.stringify(d),
    () => panel(d, null)]);
  list.replaceChildren(...parts.map(([key, make]) => {
    const box = kept.get(key) || make(); box.dataset.seen = key; return box;
  }));
}
function groupBySeq(mine) {
  const groups = new Map();
  for (const d of mine) { const k = String(d.seq);
    if (!groups.has(k)) groups.set(k, []); groups.get(k).push(d); }
  return groups;
}
async function loadDecisions() {
  const mine = ++decisionsAsked;
  const r = await fetch(api + '/decisions', {headers: auth}).catch(() => null);
  if (!r || !r.ok || mine !== decisionsAsked) return;
  const body = await r.json();
  const open = body.decisions || [];
  const waiting = Array.isArray(body.waiting) ? body.waiting : open;
  overdue = false;
  showDecisions(open, waiting, Array.isArray(body.cards) ? body.cards : null);
  // nothing waits any more: "Your Strike waits for …" is no longer true (D-3)
  if (!waiting.length) $('decision-status').textContent = '';
}
async function decide(d, value, quiet) {
  const r = await reach(api + '/decisions/' + encodeURIComponent(d.id), {method: 'POST',
    headers: auth, body: JSON.stringify({choice: value})});
  if (!r) { $('decision-status').textContent = 'Not sent: ' + what(d) +
    ' — the server cannot be reached.'; return false; }
  const answer = await jsonOf(r);
  report(r.ok ? '' : answer.error);
  if (r.ok) { answeredHere.add(d.id); $('decision-status').textContent = 'Sent: ' + what(d) +
    ', ' + chosenWords(d, value) + '.'; }
  if (!quiet) loadDecisions();
  return r.ok;
}
// a command that waits (202) says so, in words: "Your Strike waits for Aldric's Reaction."
function waitsFor(answer) {
  const pending = answer && answer.pending;
  if (!Array.isArray(pending) || !pending.length) return;
  const command = (answer.record && answer.record.command && answer.record.command.kind) ||
    'command';
  $('decision-status').textContent = 'Your ' + words(command) + ' waits for ' +
    pending.map(p => what(p) + (p.waiting_for && p.kind !== 'approve' ? ' (' + owner(p) + ')'
      : '')).join(' and ') + '.';
  loadDecisions();
}
source.addEventListener('record', loadDecisions);
source.addEventListener('moved', loadDecisions);
// --- the Host's settings: a time limit, NPCs deciding automatically, trusted modifiers ------
if (HOST) {
  (async () => {
    const r = await fetch(api + '/settings', {headers: auth}).catch(() => null);
    if (!r || !r.ok) return;
    const s = await r.json();
    $('s-timeout').value = s.decision_timeout === null ? '' : String(s.decision_timeout);
    $('s-npcs').value = s.npcs_decide; $('s-trust').checked = !!s.trust_modifiers;
    $('s-hidden').value = s.hidden_asks;
  })();
  $('settings-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const text = $('s-timeout').value.trim();
    const seconds = text === '' ? null : Number(text);
    if (seconds !== null && !(Number.isInteger(seconds) && seconds >= 5 && seconds <= 3600)) {
      report('The time to decide is whole seconds from 5 to 3600, not "' + text +
        '".'); return;
    }
    const body = {decision_timeout: seconds, npcs_decide: $('s-npcs').value,
      trust_modifiers: $('s-trust').checked};
    body.hidden_asks = $('s-hidden').value;
    $('s-saved').textContent = '';
    const r = await reach(api + '/settings', {method: 'PUT', headers: auth,
      body: JSON.stringify(body)});
    if (!r) { $('s-saved').textContent = 'Not saved: the server cannot be reached.'; return; }
    const answer = await jsonOf(r);
    report(r.ok ? '' : answer.error);
    $('s-saved').textContent = r.ok ? 'Saved.' : '';
    if (r.ok) loadDecisions();  // NPCs now automatic: their open decisions are answered
  });
}
loadDecisions();
