// The play form, the odds, rolling (server or physical dice), common commands, the Host's
// command box, and the start of the live stream.
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
