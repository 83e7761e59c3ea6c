// --- decisions: whom the fight waits for, and the choices that are the viewer's (issue 11) ----
// GET …/decisions lists the open decisions the viewer may answer (a player: its characters';
// the Host: all) and whom the fight waits for; POST …/decisions/{id} {choice} answers one.
const HOST = boot.role === 'host';
const CHOICE_WORDS = {reaction: 'Reaction', adjustments: 'Adjustments',
  obstruction: 'Obstruction tokens', approve: 'approval', dice: 'dice',
  interpose: 'answer: interpose or not'};
const percent = p => { const x = 100 * p;
  return (x > 0 && x < 1 ? x.toFixed(1) : x > 99 && x < 100 ? '99' : Math.round(x)) + ' %'; };
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
// the suggested option (none when the suggestion follows values secret to the viewer)
const suggests = (d, o) => !d.suggested_hidden && same(o.value, d.suggested);
// "Aldric's Reaction", "the Host's approval of Jackal's Strike"
function what(d) {
  if (!d.kind) return d.waiting_for || 'an answer';  // a hidden command's: "the Host"
  const word = CHOICE_WORDS[d.kind] || words(d.kind);
  if (d.kind === 'approve') return "the Host's approval of " + (d.combatant ? d.combatant +
    "'s proposal" : 'a proposal');
  return d.combatant ? d.combatant + "'s " + word : "the Host's " + word;
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
// --- the banner: everyone sees whom the fight waits for ----------------------------------
function banner(waiting) {
  const p = $('waiting'); p.replaceChildren();
  if (!waiting.length) { p.textContent = 'Nobody is deciding anything: the fight goes on.';
    p.className = ''; return; }
  p.className = 'waiting';
  waiting.forEach((d, i) => {
    if (i) p.append(el('span', '; '));
    p.append(el('span', (i ? 'w' : 'W') + 'aiting for ' + what(d) +
      (d.kind && d.kind !== 'approve' && owner(d) ? ': ' + owner(d) : '')));
    if (d.deadline !== null && d.deadline !== undefined) p.append(countdown(d.deadline));
  });
}
// --- one panel per decision the viewer may answer ------------------------------------------
const SECRET = 'secret';  // a text a player may not read (W-9): said another way, or not at all
function optionText(d, o) {
  let text = d.kind === 'dice' && o.count ? o.count + 'd' + o.sides +
    ': let the server roll them' : o.label !== undefined && o.label !== SECRET ? String(o.label)
    : valueText(o.value);
  const odds = o.odds;
  if (odds) {
    const bits = [];
    if (odds.hit) bits.push(percent(odds.hit.p) + ' to be hit');
    if (odds.damage) bits.push(percent(odds.damage.p) + ' to take damage');
    if (typeof odds.mean_damage === 'number') bits.push(odds.mean_damage.toFixed(1) +
      ' damage on average');
    if (odds.defeat && odds.defeat.p > 0) bits.push(percent(odds.defeat.p) + ' to go down');
    if (bits.length) text += ': ' + bits.join(', ');
  }
  if (suggests(d, o)) text += ' (suggested)';
  return text;
}
function valueText(v) {
  if (v === null || v === undefined) return 'no Reaction';
  if (Array.isArray(v)) return v.join(' ');
  if (typeof v === 'object') return Object.values(v).map(words).join(', ');
  return words(v);
}
function chips(label, faces) {
  const p = el('p', label + ' ', 'dice');
  faces.forEach((f, i) => { if (i) p.append(' '); p.append(el('span', String(f), 'chip')); });
  return p;
}
function panel(d) {
  const box = document.createElement('section'); box.className = 'decision';
  box.id = 'decision-' + d.id; box.dataset.kind = d.kind;
  const other = HOST && owner(d) && owner(d) !== 'the Host';  // the Host may answer any
  const head = el('h3', d.kind === 'approve' ? 'Approve a proposal?' : (other ? 'Answer for ' +
    owner(d) + ': ' : 'Your decision: ') + what(d));
  head.id = 'decision-' + d.id + '-title'; box.setAttribute('aria-labelledby', head.id);
  const first = (d.options || [])[0] || {};
  const prompt = d.kind === 'dice' && first.count ? what(d).replace("'s dice", '') + ': roll ' +
    first.count + 'd' + first.sides + ' and enter the faces.' : d.prompt === SECRET ? '' :
    d.prompt || '';
  box.append(head, el('p', prompt, 'prompt'));
  if (d.deadline !== null && d.deadline !== undefined) box.append(countdown(d.deadline));
  if (d.kind === 'adjustments' && first.outcome && first.outcome.natural)
    box.append(chips('Dice rolled:', first.outcome.natural));
  const group = document.createElement('div'); group.className = 'options';
  group.setAttribute('role', 'group'); group.setAttribute('aria-labelledby', head.id);
  const dice = d.kind === 'dice';
  for (const o of d.options || []) {
    const b = el('button', optionText(d, o), suggests(d, o) ? 'suggested' : '');
    b.type = 'button'; b.dataset.value = JSON.stringify(o.value);
    b.addEventListener('click', () => decide(d, o.value));
    if (d.kind === 'adjustments' && o.outcome && o.outcome.final) {
      const item = document.createElement('div'); item.className = 'option';
      item.append(b, chips('final dice:', o.outcome.final)); group.append(item);
    } else group.append(b);
  }
  box.append(group);
  const hidden = d.suggested_hidden || (d.options || []).map(o => o.odds_hidden).find(x => x);
  if (hidden) box.append(el('p', 'No odds or suggestion here: ' + hidden, 'note'));
  if (dice) box.append(diceEntry(d, first));
  return box;
}
function diceEntry(d, stage) {  // staged physical dice: the roller types this stage's faces
  const form = document.createElement('form'); form.className = 'dice-entry';
  const said = /(\d+)d(\d+)/.exec(String(stage.label || '')) || [];  // "2d100: the server …"
  const count = Number(stage.count || said[1]) || 1, sides = Number(stage.sides || said[2]) || 100;
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
function showDecisions(mine, waiting) {
  banner(waiting);
  // nobody deciding: the part keeps out of the way (W-37); the viewer's own: framed, on top
  $('decisions').classList.toggle('idle', !waiting.length && !mine.length);
  $('decisions').classList.toggle('yours', mine.length > 0);
  const seen = JSON.stringify(mine);
  if (seen === decisionsSeen) return;  // unchanged: no new announcement, no lost typing
  decisionsSeen = seen;
  // a panel still open stays as it is (focus and typing kept); answered ones go, new ones come
  const list = $('decision-panels'), kept = new Map();
  for (const box of list.children) kept.set(box.dataset.seen, box);
  list.replaceChildren(...mine.map(d => {
    const key = JSON.stringify(d), box = kept.get(key) || panel(d);
    box.dataset.seen = key; return box;
  }));
}
async function loadDecisions() {
  const mine = ++decisionsAsked;
  const r = await fetch(api + '/decisions', {headers: auth});
  if (!r.ok || mine !== decisionsAsked) return;
  const body = await r.json();
  const open = body.decisions || [];
  const waiting = Array.isArray(body.waiting) ? body.waiting : open;
  overdue = false;
  showDecisions(open, waiting);
  // nothing waits any more: "Your Strike waits for …" is no longer true (D-3)
  if (!waiting.length) $('decision-status').textContent = '';
}
async function decide(d, value) {
  const r = await fetch(api + '/decisions/' + encodeURIComponent(d.id), {method: 'POST',
    headers: auth, body: JSON.stringify({choice: value})});
  const answer = await r.json();
  report(r.ok ? '' : answer.error);
  if (r.ok) $('decision-status').textContent = 'Sent: ' + what(d) + ', ' + valueText(value) +
    '.';
  loadDecisions();
}
// a command that waits (202) says so, in words: "Your Strike waits for Aldric's Reaction."
function waitsFor(answer) {
  const pending = answer && answer.pending;
  if (!Array.isArray(pending) || !pending.length) return;
  const command = (answer.record && answer.record.command && answer.record.command.kind) ||
    'command';
  $('decision-status').textContent = 'Your ' + words(command) + ' waits for ' +
    pending.map(what).join(' and ') + '.';
  loadDecisions();
}
source.addEventListener('record', loadDecisions);
source.addEventListener('moved', loadDecisions);
// --- the Host's settings: a time limit, NPCs deciding automatically, trusted modifiers ------
if (HOST) {
  (async () => {
    const r = await fetch(api + '/settings', {headers: auth}); if (!r.ok) return;
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
    const r = await fetch(api + '/settings', {method: 'PUT', headers: auth,
      body: JSON.stringify(body)});
    const answer = await r.json();
    report(r.ok ? '' : answer.error);
    $('s-saved').textContent = r.ok ? 'Saved.' : '';
  });
}
loadDecisions();
