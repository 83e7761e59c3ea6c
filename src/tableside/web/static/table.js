const boot = JSON.parse(document.getElementById('boot').textContent);
const api = '/api/encounters/' + boot.encounter;
const auth = {'X-CSRF-Token': boot.csrf, 'Content-Type': 'application/json'};
const WAR = boot.game === 'majesty-war';
const KIND = WAR ? 'strike' : 'attack';
const $ = id => document.getElementById(id);
const el = (tag, text, cls) => { const n = document.createElement(tag);
  n.textContent = text; if (cls) n.className = cls; return n; };
const cell = v => (v !== null && typeof v === 'object') ? JSON.stringify(v) : String(v);
const signed = n => (n >= 0 ? '+' : '') + n;
const dice = d => d.join(' ');
// --- the log: every line as pages.py writes it on the server -----------------------------
const BY = {host: 'the Host', timeout: 'the deadline: the suggestion', cli: 'the command line'};
const byWords = by => BY[by] || (String(by).startsWith('seat:') ? 'a player' : String(by));
const choiceWord = v => v === null || v === undefined ? 'none' : typeof v === 'string' ? v :
  JSON.stringify(v);
function recordHead(r) {
  const c = r.command || {}, data = r.data || {};
  const asked = (data.requests || []).map(q => (q.combatant ? q.combatant : 'the Host') + ' (' +
    q.kind + ')').join(', ');
  if (r.kind === 'command') return c.kind + ' ' + JSON.stringify(c.args || {});
  if (r.kind === 'request') return c.kind + ' (command ' + r.seq + ') waits for ' + asked;
  if (r.kind === 'answer') {
    const a = data.answer || {};
    return 'answer (' + (c.kind || '?') + ', command ' + r.seq + '): ' + choiceWord(a.value) +
      ' by ' + byWords(a.by) + (data.outcome ? ', ' + data.outcome : '') +
      (asked ? '; then waits for ' + asked : '');
  }
  return r.kind + ' (' + (c.kind || '?') + ', command ' + r.seq + ')';
}
function lines(r) {
  const out = ['#' + r.revision + ' ' + recordHead(r)];
  if (r.kind === 'command' || r.kind === 'answer') for (const e of r.events) {
    const s = e.data && e.data.result;
    if (s && s.schema === 'tableside/majesty-strike') out.push(...strike(e, s));
    else if (s && s.schema === 'tableside/strife-attack') out.push(...attack(e, s));
    else out.push('    ' + e.kind + ' ' + JSON.stringify(e.data) + '  [' + (e.rule || '-') + ']');
  }
  return out;
}
const labelled = ps => ps.length ? ' (' + ps.map(p => p.label + ' ' + p.amount).join(', ') +
  ')' : '';
const wearLine = w => '      Wear ' + w.kind + ': base ' + w.base + ' (' + w.hits +
  ' hits, Force ' + w.force + '), flat ' + signed(w.flat) + ', ' + signed(w.percent) + '% (' +
  signed(w.delta) + '), minimum ' + w.minimum + ' → ' + w.amount;
function strike(e, s) {
  const adj = s.adjustments.map(a => a.by + ' ' + a.from + '→' + a.to).join(', ');
  const out = ['    ' + e.kind + ' ' + s.striker + ' → ' + s.defender + ' with ' +
    (s.weapon || 'no weapon') + s.maneuvers.map(m => ' + ' + m).join('') +
    '  [' + (e.rule || '-') + ']',
    '      Precision ' + s.precision.value + ' · Guard ' + s.guard.value + ' · Force ' +
    s.force.value,
    '      rolled ' + dice(s.rolled) + ' → final ' + dice(s.final) +
    (adj ? ' (' + adj + ')' : ''),
    '      ' + s.hits + ' hits, ' + s.stops + ' stops → ' + s.uncanceled_hits +
    ' hits uncanceled, ' + s.uncanceled_stops + ' stops'];
  const d = s.defender_after;
  if (s.wear && d) out.push('      ' + d.name + ' takes ' + s.wear.amount + ' ' + s.wear.kind +
    ' Wear: Endurance ' + d.endurance + ', Resolve ' + d.resolve + ', Passion ' + d.passion +
    ', ' + d.status);
  for (const a of s.adjustments) out.push('      Adjustment die ' + (a.die + 1) + ': ' + a.from +
    '→' + a.to + ' by ' + a.by + ' — ' + a.why);
  if (s.discarded.length) out.push('      Boon/Bane ' + signed(s.boon_net) + ': discarded ' +
    dice(s.discarded));
  if (s.epic) out.push('      Epic ' + s.epic + ': ' + s.natural_unpaired_twelves +
    ' unpaired 12s, ' + s.natural_unpaired_ones + ' unpaired 1s in the natural roll');
  if (s.twelve_effects || s.passion_triggers || s.ap_gained || s.knock_back) out.push(
    '      Effects fired: 12 Effects ' + s.twelve_effects_fired + ' of ' + s.twelve_effects +
    ', Passion Effects ' + s.passion_applied + ' of ' + s.passion_triggers + ', AP gained ' +
    s.ap_gained + ', Knock Back ' + s.knock_back + '"');
  for (const w of [s.wear, ...s.additional_wear]) if (w) out.push(wearLine(w));
  const back = s.wear_to_striker;
  if (back) out.push('      ' + s.striker + ' takes ' + back.amount + ' ' + back.kind +
    ' Wear from ' + s.defensive_hits + ' Defensive Hits');
  if (s.defender_falter || s.striker_falter) out.push('      Falter: ' + s.defender + ' ' +
    s.defender_falter + labelled(s.defender_falter_parts) + ', ' + s.striker + ' ' +
    s.striker_falter);
  if (s.defender_status_change || s.striker_status_change) out.push('      Status: ' +
    s.defender + ' ' + (s.defender_status_change || 'unchanged') + ', ' + s.striker + ' ' +
    (s.striker_status_change || 'unchanged'));
  out.push('      rulings ' + s.rulings.join(', '));
  return out;
}
const words = t => String(t).replace(/_/g, ' ');
// a value concealed from a player (W-1) is the string "secret": no object to read
const isObject = v => v !== null && typeof v === 'object';
function attackEffect(x, s) {
  if (x.kind === 'percent') return '      ' + x.name + ': d100 ' + x.roll + ' vs ' + x.chance +
    '% → ' + (x.applied ? 'applied' : 'not applied');
  if (x.kind === 'condition') return '      ' + (x.target === 'attacker' ? s.attacker :
    s.defender) + ' gets ' + x.name + ' (' +
    x.source + ')';
  return '      ' + x.item + ' damaged';
}
function attack(e, s) {
  const out = ['    ' + e.kind + ' ' + s.attacker + ' → ' + s.defender + ' with ' + s.weapon +
    (s.precision === true ? ' (Precision Attack)' : '') + '  [' + (e.rule || '-') + ']'];
  if (isObject(s.ward_off)) out.push('      Ward-off roll-off: ' + s.ward_off.winner + ' wins' +
    (s.warded_off ? ', the attack is warded off' : ''));
  if (s.natural !== null) out.push('      d100 ' + s.naturals.join(' ') +
    labelled(s.modifiers) + ' → ' + s.modified + ' vs AC ' + s.ac + ', Dodge ' + s.dodge +
    ': ' + words(s.outcome));
  const r = s.reaction;
  if (isObject(r)) out.push('      ' + words(r.kind) + ' with ' + r.items.join(', ') +
    ': d20 ' + r.roll + labelled(r.parts) + ' = ' + r.total + ', ' + r.result +
    (r.stopped === true ? ', stopped' : '') + (r.disarmed === true ? ', disarmed' : '') +
    (r.item_damaged === true ? ', item damaged' : ''));
  const d = isObject(s.damage) ? s.damage : null;
  const crit = d && typeof d.crit_multiplier === 'number' && d.crit_multiplier > 1;
  if (d) out.push('      damage ' + d.dice + ': rolled ' + d.rolls.join(' ') +
    labelled(d.parts) + ' = ' + d.total + ' (' + d.basis + (crit ? ', ×' +
    d.crit_multiplier : '') + (typeof d.absorbed === 'number' && d.absorbed > 0 ? ', ' +
    d.absorbed + ' absorbed' : '') + ')');
  out.push(...s.effects.map(x => attackEffect(x, s)));
  out.push('      rulings ' + s.rulings.join(', '));
  return out;
}
// --- the fight at a glance ----------------------------------------------------------------
const until = t => t.ends ? ' until Cycle ' + t.ends.cycle + ', Turn ' + (t.ends.turn + 1)
  : ' until its next Turn';
const condition = c => c.name + (c.source ? ' (' + c.source + ')' : '') +
  (c.rounds_left !== null ? ', ' + c.rounds_left + ' rounds left' : '') +
  (c.until ? ', until ' + c.until : '') + (c.stacks > 1 ? ', ' + c.stacks + ' stacks' : '');
function cellText(column, v) {
  if (column === 'timed' && Array.isArray(v))
    return v.map(t => t.name + ' (' + t.source + ')' + until(t)).join('; ') || '–';
  if (column === 'conditions' && Array.isArray(v)) return v.map(condition).join('; ') || '–';
  return cell(v);
}
function whose(state) {
  if (state.ended) return 'Ended — winner: ' + (state.winner || 'nobody');
  if (!state.current) return 'Not started';
  const ambush = !WAR && state.round === 0 && state.ambush;
  return (WAR ? 'Cycle ' + state.cycle : ambush ? 'Ambush round (' + state.ambush + ')'
    : 'Round ' + state.round) + ': ' + state.current + "'s Turn";
}
let state = boot.state;
const rowsOf = s => s.combatants || s.models || [];
function distanceFrom(row) {
  const me = rowsOf(state).find(r => r.id === $('p-actor').value);
  if (!me || me.id === row.id) return '';
  return Math.hypot(...row.position.map((x, i) => x - me.position[i])).toFixed(2);
}
function show(next) {
  state = next;
  $('revision').textContent = state.revision; $('whose').textContent = whose(state);
  const order = $('order'); order.replaceChildren();
  (state.order || []).forEach((t, i) => {
    const name = typeof t === 'string' ? t : t.segment + ': ' + t.combatant + ' (' + t.ap + ' AP)';
    const who = typeof t === 'string' ? t : t.combatant;
    order.append(el('li', name, (who === state.current && (typeof t === 'string' ||
      i === state.turn)) ? 'current' : ''));
  });
  const rows = rowsOf(state);
  const table = $('combatants');
  const head = table.tHead.rows[0]; head.replaceChildren();
  const cols = rows.length ? [...Object.keys(rows[0]), 'distance'] : [];
  cols.forEach(c => head.append(el('th', c)));
  const body = table.tBodies[0]; body.replaceChildren();
  for (const row of rows) { const tr = document.createElement('tr');
    cols.forEach(c => tr.append(el('td', c === 'distance' ? distanceFrom(row)
      : cellText(c, row[c])))); body.append(tr); }
}
async function refresh() {
  const r = await fetch(api, {headers: auth});
  if (r.ok) show((await r.json()).state);
}
// --- sending ------------------------------------------------------------------------------
function report(text) { $('error').textContent = text; }
// commands, undo and redo carry the revision this page shows (W-14): a command is decided
// against the table as it is now, an undo or redo only if nothing came after that revision
const SEEN = ['/commands', '/undo', '/redo'];
function movedOn(path, seen) {
  const n = state.revision - seen, what = path === '/commands' ? 'command' : path.slice(1);
  return 'The table moved on: ' + (n > 0 ? n + ' new record' + (n === 1 ? '' : 's') +
    ' since revision ' + seen : 'the page was behind') + '; your ' + what +
    ' was not applied. Check the table and send it again.';
}
async function post(path, body) {
  const seen = state.revision;
  if (SEEN.includes(path)) body = {...body, revision: seen};
  const r = await fetch(api + path, {method: 'POST', headers: auth, body: JSON.stringify(body)});
  const answer = await r.json();
  if (r.status === 409 && /^The fight is waiting/.test(answer.error || '')) {
    report(answer.error); loadDecisions(); return null; }  // D-3: it waits for a decision
  if (r.status === 409) { await refresh(); report(movedOn(path, seen)); return null; }
  report(r.ok ? '' : answer.error);
  if (r.status === 202) waitsFor(answer);  // it waits for someone's decision (issue 11)
  return r.ok ? answer : null;
}
// --- the play form ------------------------------------------------------------------------
let options = null;
function choose(select, items, keep) {
  const before = select.value; select.replaceChildren();
  for (const [value, text] of items) { const o = el('option', text); o.value = value;
    select.append(o); }
  if (keep && items.some(([value]) => value === before)) select.value = before;
}
const actor = () => options && options.actors.find(a => a.id === $('p-actor').value);
const target = () => { const a = actor();
  return a && a.targets.find(t => t.id === $('p-target').value); };
function fillActor() {
  const a = actor(); if (!a) return;
  choose($('p-target'), a.targets.map(t => [t.id, t.id + ' (' + t.distance + '")']), true);
  const weapons = WAR ? [['', a.weapon + ' (sheet)'], ...options.weapons.filter(
    w => w.name !== a.weapon).map(w => [w.name, w.name])] : a.weapons.map(w => [w, w]);
  choose($('p-weapon'), weapons, true);
  fillTarget();
}
function fillTarget() {
  const t = target();
  // not set: the defender's controller decides (issue 11); "none" declares no Reaction
  if ($('p-reaction')) choose($('p-reaction'), [['', "the defender's player decides"],
    ['none', 'no Reaction'], ...((t && t.reactions) || []).map(k => [k, k.replace(/_/g, ' ')])],
  true);
}
async function loadOptions() {
  const r = await fetch(api + '/options', {headers: auth}); if (!r.ok) return;
  const first = options === null; options = await r.json();
  choose($('p-actor'), options.actors.map(a => [a.id, a.id]), true);
  if (first && options.actors.some(a => a.id === state.current))
    $('p-actor').value = state.current;  // whose Turn it is, when the caller plays it
  if (first && WAR) for (const m of options.maneuvers) {
    const box = el('input'); box.type = 'checkbox'; box.value = m.name;
    const label = el('label', ' ' + m.name); label.prepend(box); $('p-maneuvers').append(label);
  }
  fillActor(); show(state); oddsSoon();
}
function numbers(text, what) {
  const parts = text.split(/[\s,]+/).filter(x => x);
  if (!parts.every(x => /^-?\d+(\.\d+)?$/.test(x))) throw new Error(what + ' "' + text +
    '" must be numbers separated by commas.');
  return parts.map(Number);
}
function point(text, what) {
  const p = numbers(text, what);
  if (p.length !== 3) throw new Error(what + ' "' + text + '" must be three numbers x,y,z.');
  return p;
}
function warArgs() {
  const args = {striker: $('p-actor').value, defender: $('p-target').value};
  if ($('p-weapon').value) args.weapon = $('p-weapon').value;
  const maneuvers = [...document.querySelectorAll('#p-maneuvers input:checked')]
    .map(b => b.value);
  if (maneuvers.length) args.maneuvers = maneuvers;
  for (const flag of ['ranged', 'two_ap', 'full_defensive_stance'])
    if ($('p-' + flag).checked) args[flag] = true;
  const path = $('p-path').value.trim();
  if (path) args.path = path.split(';').map(p => point(p, 'The path point'));
  for (const name of ['boon', 'bane', ...boot.numbers]) {
    const n = Number($('p-' + name).value || 0);
    if (!Number.isInteger(n)) throw new Error(name + ' must be a whole number, not "' +
      $('p-' + name).value + '".');
    if (n) args[name] = n;
  }
  return args;
}
let queued = [];  // earlier attacks of the same Action (S-17: up to four, 4-3-2)
function attackArgs() {
  const args = {attacker: $('p-actor').value, attacks: [...queued, attackItem()]};
  if ($('p-physical') && $('p-physical').checked) args.physical = [args.attacker];  // D-6
  return args;
}
function attackItem() {
  const attack = {defender: $('p-target').value};
  if ($('p-weapon').value) attack.weapon = $('p-weapon').value;
  if ($('p-precision').checked) attack.precision = true;
  const mods = numbers($('p-modifiers').value, 'The modifiers');
  if (mods.length) attack.modifiers = mods;
  const reaction = $('p-reaction') ? $('p-reaction').value : '';
  if (reaction) attack.reaction = reaction === 'none' ? null : reaction;
  return attack;
}
function showQueue() {
  $('p-queue').replaceChildren(...queued.map(a => el('li', a.defender +
    (a.weapon ? ' with ' + a.weapon : '') + (a.reaction ? ', ' + words(a.reaction) : ''))));
  oddsSoon();
}
if (!WAR) {
  $('p-more').addEventListener('click', () => {
    try { queued.push(attackItem()); showQueue(); } catch (e) { report(e.message); } });
  $('p-clear').addEventListener('click', () => { queued = []; showQueue(); });
}
const playArgs = () => WAR ? warArgs() : attackArgs();
const pct = p => p === 0 ? '0%' : p < 0.0001 ? '<0.01%' : (100 * p).toFixed(2) + '%';
function law(title, d) {
  const t = el('table'); t.append(el('caption', title + ' (mean ' + d.mean.toFixed(2) + ')'));
  const h = document.createElement('tr');
  for (const c of ['value', 'P(=)', 'P(≥)']) h.append(el('th', c));
  t.append(h);
  for (const v of d.values) { const tr = document.createElement('tr');
    for (const c of [String(v.value), pct(v.eq.p), pct(v.ge.p)]) tr.append(el('td', c));
    t.append(tr); }
  return t;
}
function showWarOdds(body) {
  const o = body.odds, d = o.distributions, e = o.chances.epic;
  const defeat = el('strong', 'P(Defeat) ' + pct(o.defeat.p)); defeat.id = 'odds-defeat';
  $('odds-summary').replaceChildren(defeat, el('span', ' · uncanceled Hits mean ' +
    d.uncanceled_hits.mean.toFixed(2) + ' · Epic Strike ' + pct(e.strike.p) +
    ', Epic Defense ' + pct(e.defense.p) + ' · Wear to the Striker (' +
    o.wear_to_striker_kind + ') mean ' + d.wear_to_striker.mean.toFixed(2) + ' · ' +
    body.ap_cost + ' AP · ' + body.policy + ' Adjustments'));
  $('odds-laws').replaceChildren(law('uncanceled Hits', d.uncanceled_hits),
    ...o.wear_kinds.map(k => law('Wear ' + k, d['wear_' + k])));
}
function chanceRows(t, title, chances) {
  const shown = Object.entries(chances).filter(([, p]) => p.p > 0);
  if (!shown.length) return;
  const h = document.createElement('tr'); h.append(el('th', title), el('th', 'P'));
  t.append(h);
  for (const [k, p] of shown) { const tr = document.createElement('tr');
    tr.append(el('td', words(k)), el('td', pct(p.p))); t.append(tr); }
}
function showAttackOdds(body) {
  const tables = [];
  for (const a of body.attacks) {
    const t = el('table'), w = a.whole;
    t.append(el('caption', 'on ' + a.defender + ' with ' + a.weapon + ': modifier ' +
      signed(a.modifier) + ' vs AC ' + a.ac + ', Dodge ' + a.dodge));
    chanceRows(t, 'outcome', w.outcome);
    if (a.reaction) chanceRows(t, words(a.reaction), w.reaction);
    chanceRows(t, 'condition', w.conditions);
    tables.push(t, law('damage to ' + a.defender, w.damage));
  }
  const all = f => body.attacks.map(f).join(', ');
  const defeat = el('strong', 'P(defeat) ' + all(a => pct(a.whole.defeat.p)));
  defeat.id = 'odds-defeat';
  $('odds-summary').replaceChildren(defeat, el('span', ' · P(hit) ' +
    all(a => pct(a.whole.hit.p)) + ' · damage mean ' +
    all(a => a.whole.damage.mean.toFixed(2)) + ' · at ' + all(a => a.whole.hp) + ' HP'));
  $('odds-laws').replaceChildren(...tables);
}
let oddsTimer = null, oddsAsked = 0;
function oddsSoon() { clearTimeout(oddsTimer); oddsTimer = setTimeout(fetchOdds, 250); }
async function fetchOdds() {
  const mine = ++oddsAsked;
  if (!$('p-actor').value || !$('p-target').value) return;
  let args;
  try { args = playArgs(); } catch (e) { $('odds-summary').textContent = e.message; return; }
  const r = await fetch(api + '/odds', {method: 'POST', headers: auth,
    body: JSON.stringify({kind: KIND, args: args})});
  const body = await r.json();
  if (mine !== oddsAsked) return;
  if (!r.ok) { $('odds-summary').textContent = body.error; $('odds-laws').replaceChildren();
    return; }
  (WAR ? showWarOdds : showAttackOdds)(body);
}
// --- rolling: the server's dice, or physical dice with the best suggestion first ----------
let pending = null;
function typedDice(args) {
  const text = $('my-dice').value, faces = WAR ? 12 : 100;
  const d = text.split(/[\s,]+/).filter(x => x).map(Number);
  const least = WAR ? 7 + (args.boon || 0) + (args.bane || 0) : 1;
  if (d.length < least || !d.every(x => Number.isInteger(x) && x >= 1 && x <= faces))
    throw new Error('Type ' + (WAR ? 'at least ' + least + ' dice (7, plus one per Boon or ' +
      'Bane)' : 'the dice') + ', each a whole number from 1 to ' + faces + ', not "' + text +
      '".');
  return d;
}
function hideSuggestion() { pending = null; $('suggestion').hidden = true;
  if ($('change-box')) $('change-box').hidden = true; }
async function send(args, dice) {
  const body = {kind: KIND, args: args}; if (dice) body.dice = dice;
  if ($('p-hidden') && $('p-hidden').checked) body.hidden = true;
  if (await post('/commands', body)) { hideSuggestion(); if (!WAR) { queued = []; showQueue(); } }
}
$('roll').addEventListener('click', () => {
  try { send(playArgs(), null); } catch (e) { report(e.message); } });
$('use-dice').addEventListener('click', async () => {
  let args, d;
  try { args = playArgs(); d = typedDice(args); } catch (e) { report(e.message); return; }
  const r = await fetch(api + '/preview', {method: 'POST', headers: auth,
    body: JSON.stringify({kind: KIND, args: args, dice: d})});
  const answer = await r.json();
  if (!r.ok && r.status === 403 && /\(W-10\)/.test(answer.error)) {
    report(''); pending = {args: args, dice: d, steps: []};
    $('suggestion-head').textContent = answer.error + ' Accept sends these dice as they are.';
    $('suggestion-steps').replaceChildren(); $('suggestion-lines').replaceChildren();
    $('suggestion').hidden = false; return;
  }
  report(r.ok ? '' : answer.error);
  if (!r.ok) { hideSuggestion(); return; }
  pending = {args: args, dice: d, steps: answer.steps};
  $('suggestion-head').textContent = !WAR ? 'With these dice:' : answer.adjustments.length ?
    'best would make these Adjustments:' : 'best makes no Adjustment: the dice stand.';
  $('suggestion-steps').replaceChildren(...answer.adjustments.map(a => el('li', 'die ' +
    (a.die + 1) + ': ' + a.from + ' → ' + a.to + ' (' + a.by + ')')));
  $('suggestion-lines').replaceChildren(...lines(answer.record).slice(1).map(l => el('div', l)));
  $('suggestion').hidden = false;
});
$('accept').addEventListener('click', () => { if (pending) send(pending.args, pending.dice); });
$('discard').addEventListener('click', hideSuggestion);
const stepText = s => (s.side ? s.side + ':' : '') + (s.die + 1) + (s.delta > 0 ? '+' : '-');
function parseSteps(text) {
  return text.split(',').map(x => x.trim()).filter(x => x).map(x => {
    const m = /^(?:(striker|defender):)?(\d+)([+-])$/.exec(x);
    if (!m || Number(m[2]) < 1) throw new Error('The Adjustment "' + x +
      '" is not like 3+, 5- or defender:2- (dice numbered from 1).');
    const step = {die: Number(m[2]) - 1, delta: m[3] === '+' ? 1 : -1};
    if (m[1]) step.side = m[1];
    return step;
  });
}
if (WAR) {
  $('change').addEventListener('click', () => { if (!pending) return;
    $('steps').value = pending.steps.map(stepText).join(','); $('change-box').hidden = false; });
  $('apply-steps').addEventListener('click', () => {
    if (!pending) return;
    try { const steps = parseSteps($('steps').value);
      send({...pending.args, mode: 'explicit', steps: steps}, pending.dice);
    } catch (e) { report(e.message); }
  });
}
$('play').addEventListener('input', oddsSoon);
$('play').addEventListener('change', ev => {
  if (ev.target.id === 'p-actor') { fillActor(); show(state); }
  if (ev.target.id === 'p-target') fillTarget();
  oddsSoon();
});
$('play').addEventListener('submit', ev => ev.preventDefault());
// --- common commands for the chosen combatant ---------------------------------------------
const me = () => $('p-actor').value;
$('q-next').addEventListener('click', () => post('/commands', {kind: 'next'}));
$('q-move').addEventListener('click', () => {
  try { post('/commands', {kind: 'move', args: {id: me(), to: point($('q-to').value,
    'The destination')}}); } catch (e) { report(e.message); } });
if (WAR) {
  $('q-stance').addEventListener('click', () => {
    const row = rowsOf(state).find(r => r.id === me());
    post('/commands', {kind: 'stance', args: {id: me(), on: !(row && row.stance)}}); });
  $('q-rest').addEventListener('click', () => post('/commands', {kind: 'rest',
    args: {id: me(), ap: Number($('q-ap').value)}}));
}
// --- live: every record as it is written --------------------------------------------------
const source = new EventSource(api + '/stream?after=' + boot.revision);
source.addEventListener('revoked', () => { source.close();
  report('This link was revoked by the Host: ask the Host for a new one.'); });
source.addEventListener('record', ev => {
  const r = JSON.parse(ev.data); const log = $('log');
  for (const line of lines(r)) log.append(el('div', line, r.hidden ? 'hidden' : ''));
  log.scrollTop = log.scrollHeight; refresh(); loadOptions();
});
// a hidden command moved the table: its record is not for players, its effect is in the state
source.addEventListener('moved', () => { refresh(); loadOptions(); });
// --- the generic command form (any command, for the Host and for players) -----------------
$('command').addEventListener('submit', ev => {
  ev.preventDefault(); const f = ev.target; let args;
  try { args = JSON.parse(f.args.value || '{}'); }
  catch (e) { report('Arguments are not JSON.'); return; }
  const body = {kind: f.kind.value, args: args};
  if (f.dice.value.trim()) body.dice = f.dice.value.split(',').map(Number);
  if (f.hidden && f.hidden.checked) body.hidden = true;
  post('/commands', body);
});
for (const step of ['undo', 'redo']) { const b = $(step);
  if (b) b.addEventListener('click', () => post('/' + step, {})); }
show(state); loadOptions();
