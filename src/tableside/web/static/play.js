// The play panel (templates/encounter/play.html): whose Turn, the acting character and its
// values, the target (the nearest enemy first, W-17), every action of the game as a button with
// its cost, the Strike or attack with its odds and dice, and the Host's tools. Private names
// live in this IIFE; others reach it through `loadOptions` and the document's CustomEvents
// (`tableside:target`, `tableside:move` in; `tableside:actor` out).
(() => {
const HOSTING = boot.role === 'host';
const BASE_TITLE = document.title;
let options = null, action = KIND, lastTurn = null, lastActor = null, oddsBody = null;
function choose(select, items, keep) {
  const before = select.value; select.replaceChildren();
  for (const [value, text] of items) { const o = el('option', text); o.value = value;
    select.append(o); }
  if (keep && items.some(([value]) => value === before)) select.value = before;
}
const actor = () => options && options.actors.find(a => a.id === $('p-actor').value);
const target = () => { const a = actor();
  return a && a.targets.find(t => t.id === $('p-target').value); };
const rowOf = id => rowsOf(state).find(r => r.id === id);
const num = v => typeof v === 'number';
// --- whose Turn: the heading and the tab's title (W-17) -----------------------------------
function turnWords(s) {
  if (s.ended) return 'The fight is over — ' + (s.winner ? s.winner + ' won' : 'nobody won');
  if (!s.current) return 'The fight has not started';
  const yours = options && options.current === s.current ? options.yours
    : boot.characters.includes(s.current);
  const row = rowOf(s.current) || {};
  let more = '';
  if (WAR && num(row.ap)) more = ', ' + row.ap + ' AP';
  if (!WAR) {
    const used = row.elements || [];
    const left = ['move', 'action'].filter(x => !used.includes(x) && !used.includes('whole_turn'));
    more = left.length ? ': ' + left.map(x => x === 'move' ? 'Move' : 'Action').join(', ') +
      ' left' : '';
  }
  return yours ? 'Your Turn — ' + s.current + more : s.current + "'s Turn" + more;
}
function showTurn(s) {
  const text = turnWords(s); $('turn-head').textContent = text;
  document.title = text + ' · ' + BASE_TITLE;
  if (s.current !== lastTurn && options) { lastTurn = s.current; followTurn(); }
}
// a new Turn: its character acts (when the viewer plays it), aiming at the nearest enemy
function followTurn() {
  if (!options || !options.actors.some(a => a.id === state.current)) return;
  if ($('p-actor').value !== state.current) { $('p-actor').value = state.current; fillActor(); }
  resetOptions();
}
// --- the acting character, its values and targets -----------------------------------------
const WAR_VALUES = [['speed', 'Speed'], ['precision', 'Precision'], ['guard', 'Guard'],
  ['force', 'Force'], ['endurance', 'Endurance'], ['resolve', 'Resolve'],
  ['passion', 'Passion'], ['exertion', 'Exertion'], ['falter', 'Falter'],
  ['readied', 'Readied AP']];
const FIGHT_VALUES = [['ac', 'AC'], ['dodge', 'Dodge'], ['hp', 'HP'], ['reach', 'Reach'],
  ['movement', 'Movement']];
function showValues() {
  const a = actor(), dl = $('p-values'); dl.replaceChildren(); if (!a) return;
  const v = a.values, row = rowOf(a.id) || {};
  // a model controlled by the viewer's character shows only what commanding it needs (SA-97)
  const pairs = (WAR ? WAR_VALUES : FIGHT_VALUES).filter(([k]) => k in v).map(([k, label]) => [label,
    k === 'hp' ? v.hp + ' / ' + v.hp_max : k === 'reach' || k === 'movement' ? v[k] + '"'
      : String(v[k])]);
  if (WAR) pairs.unshift(['AP', num(row.ap) ? String(row.ap) : String(a.ap)]);
  if (!WAR) for (const [k, n] of Object.entries(v.resources || {})) pairs.push([k, String(n)]);
  if (a.controlled_by) pairs.unshift(['Controlled by', a.controlled_by]);
  if (!WAR && a.triggered && a.triggered.length)  // its Reactions and their triggers (SA-96)
    pairs.push(['Reactions', a.triggered.map(r => r.name + ' (' + r.when + ')').join(', ')]);
  for (const [label, value] of pairs) {
    const d = document.createElement('div'); d.append(el('dt', label), el('dd', value));
    dl.append(d); }
}
// a weapon held as the Attack form offers it: its hand, Clumsy penalty, no criticals (SA-92)
const handItem = h => [h.name, h.name + ' (' + h.hand + ' hand' +
  (h.clumsy ? ', Clumsy ' + String(h.clumsy).replace('-', '−') : '') +
  (h.can_crit ? '' : ', no criticals') + ')'];
function nextHand() {  // the next weapon held after the Action's queued attacks (SA-92)
  const a = actor(); if (!a || WAR || !a.hands.length) return;
  const taken = queued.map(q => q.weapon);
  const free = a.hands.find(h => taken.filter(w => w === h.name).length <
    a.hands.filter(o => o.name === h.name).length);
  $('p-weapon').value = (free || a.hands[0]).name;
}
function fillActor() {
  const a = actor(); if (!a) return;
  choose($('p-target'), a.targets.map(t => [t.id, t.id + ' (' + t.distance + '", ' +
    (t.out ? 'out' : t.enemy ? 'enemy' : 'ally') + ')']), true);
  const weapons = WAR ? [['', a.weapon + ' (sheet)'], ...options.weapons.filter(
    w => w.name !== a.weapon).map(w => [w.name, w.name])] : a.hands.map(handItem);
  choose($('p-weapon'), weapons, true);
  if (!WAR) choose($('q-power'), a.powers.map(p => [p.name, p.name + ' (' + p.cost + ' ' +
    p.resource + ', ' + (p.damage || 'no damage') + ')']), true);
  if (a.id !== lastActor) { lastActor = a.id;  // its own place to start from; the map rings it
    const p = (rowOf(a.id) || {}).position || a.position;
    ['q-x', 'q-y', 'q-z'].forEach((id, i) => { $(id).value = p[i]; });
    document.dispatchEvent(new CustomEvent('tableside:actor', {detail: {id: a.id}})); }
  fillTarget(); showValues(); fillPickers(); showCosts();
}
function aimNearest() {
  const a = actor(); if (a && a.nearest) $('p-target').value = a.nearest;
  fillTarget();
}
function fillTarget() {
  const t = target();
  // not set: the defender's controller decides (issue 11); "none" declares no Reaction
  if ($('p-reaction')) choose($('p-reaction'), [['', "the defender's player decides"],
    ['none', 'no Reaction'], ...((t && t.reactions) || []).map(k => [k, words(k)])], true);
}
let readyFor = null;  // the model the Interpose and Stand Ready defaults were last set for
// What a Host expects for a new acting elohim (M-16, M-41): Interpose for its nearest ally (not
// itself) against the enemy nearest that ally; Stand Ready for Interpose in Defensive Stance,
// else for a Strike, and nothing else.
function hostDefaults() {
  const rows = rowsOf(state), mine = rows.find(r => r.id === me());
  if (!mine) return;
  const gap = (a, b) => Math.hypot(...a.position.map((v, i) => v - b.position[i]));
  const nearest = (from, list) => list.filter(r => Array.isArray(r.position))
    .sort((a, b) => gap(from, a) - gap(from, b) || (a.id < b.id ? -1 : 1))[0];
  const ally = Array.isArray(mine.position) &&
    nearest(mine, rows.filter(r => r.side === mine.side && r.id !== mine.id));
  const foe = ally && nearest(ally, rows.filter(r => r.side !== mine.side));
  if (ally) $('q-i-defender').value = ally.id;
  if (foe) $('q-i-striker').value = foe.id;
  $('q-use1').value = mine.stance === true ? 'Interpose' : 'Strike';
  $('q-use2').value = '';
}
function fillPickers() {
  const everyone = rowsOf(state).map(r => [r.id, r.id]);
  if (WAR) {
    const uses = ['Strike', 'Move', 'Defensive Stance', 'Interpose', 'Rest', 'Speak'];
    choose($('q-use1'), uses.map(u => [u, u]), true);
    choose($('q-use2'), [['', 'nothing else'], ...uses.map(u => [u, u])], true);
    choose($('q-i-striker'), everyone, true); choose($('q-i-defender'), everyone, true);
    if (me() !== readyFor) { readyFor = me(); hostDefaults(); }
  } else {
    const mine = (options.offers || []).filter(o => o.attacker === $('p-actor').value);
    choose($('q-offer'), mine.map((o, i) => [String(i), o.target + ' with ' + o.weapon]), true);
    for (const s of document.querySelectorAll('.q-stat'))
      choose(s, [['', 'no test'], ...(options.stats || []).map(x => [x, x])], true);
    fillGround();
  }
  if (!HOSTING) return;
  for (const s of document.querySelectorAll('.h-who')) choose(s, everyone, true);
  if (WAR) choose($('h-effect'), options.effects.map(e => [e, words(e)]), true);
  else { choose($('h-condition'), options.conditions.map(c => [c, c]), true);
    choose($('h-ambush'), [['', 'nobody'], ...options.sides.map(s => [s, s])], true); }
}
// the weapons lying on the ground (SA-72), the nearest to the acting model first
function fillGround() {
  const a = actor(), from = a && ((rowOf(a.id) || {}).position || a.position);
  const lying = list(state.ground).map((g, i) => [g, i, from ? Math.hypot(...g.at.map(
    (x, j) => x - from[j])) : 0]).sort((x, y) => x[2] - y[2]);
  choose($('q-ground'), lying.map(([g, i, d]) => [String(i), g.weapon + ' (' + d.toFixed(1) +
    '" away)']), true);
}
const list = v => Array.isArray(v) ? v : [];
// --- what each action costs, shown before committing -----------------------------------------
const destination = () => ['q-x', 'q-y', 'q-z'].map(id => Number($(id).value));
function moveInches() {
  const a = actor(); if (!a) return 0;
  const from = (rowOf(a.id) || {}).position || a.position, to = destination();
  return Math.hypot(...to.map((x, i) => x - from[i]));
}
const used = () => { const a = actor(); return (a && !WAR && a.values.used) || []; };
const element = (name, key) => words(name) + (used().includes(key) ? ' (used)' : '');
// a Strike's AP from the state at once (M-14: 3, 2 for a two-AP Strike, plus each Maneuver's,
// plus 1 in Defensive Stance; W-39); the odds' own figure replaces it when they come
function strikeAP() {
  if (oddsBody && oddsBody.kind === 'strike') return oddsBody.ap_cost;
  const picked = [...document.querySelectorAll('#p-maneuvers input:checked')].map(b =>
    ((options && options.maneuvers.find(m => m.name === b.value)) || {}).ap_cost || 0);
  const normal = ($('p-two_ap') && $('p-two_ap').checked ? 2 : 3) +
    picked.reduce((a, b) => a + b, 0);
  return Math.max(1, normal) + ((rowOf($('p-actor').value) || {}).stance === true ? 1 : 0);
}
function costs() {
  const inches = moveInches(), a = actor();
  if (WAR) return {
    strike: strikeAP() + ' AP',
    move: Math.ceil(inches - 1e-9) + ' AP', stance: 'no AP', rest: $('q-ap').value + ' AP',
    stand_ready: $('q-ready-ap').value + ' AP held', carry_over: $('q-carry-ap').value + ' AP',
    break_free: '3 AP, 3 Exertion', interpose: 'no AP, a Control Check'};
  const power = a && a.powers.find(p => p.name === $('q-power').value);
  return {attack: element('Action', 'action'),
    cast: power ? (power.instant ? element('Instant', 'instant') : element('Action', 'action')) +
      ', ' + power.cost + ' ' + power.resource : element('Action', 'action'),
    move: element('Move', 'move') + ', ' + inches.toFixed(1) + '" of ' +
      (a ? a.values.movement : '?') + '"',
    instant: element('Instant', 'instant'), whole_turn: element('whole Turn', 'whole_turn'),
    hide: element('Action', 'action'), roll_with_the_blow: 'Reaction',
    aoo: 'Reaction', disengage: element('Action', 'action'),
    act: ['quick', 'roleplay_instant'].includes($('q-act-kind').value)
      ? element('Instant', 'instant') : element('Action', 'action') + ', ends the Turn',
    react: 'Reaction', pick_up: element('Instant', 'instant')};
}
function showCosts() {
  const c = costs();
  for (const [kind, text] of Object.entries(c)) { const span = $('cost-' + kind);
    if (span) span.textContent = '(' + text + ')'; }
  $('roll-cost').textContent = '(' + c[KIND] + ')';
  $('move-cost').textContent = '(' + c.move + ')';
  if (!WAR) { $('cast-cost').textContent = '(' + c.cast + ')';
    $('act-cost').textContent = '(' + c.act + ')'; $('pick-cost').textContent = '(' + c.pick_up +
      ')'; }
  if (WAR) { const row = rowOf($('p-actor').value);
    $('q-stance').textContent = row && row.stance === true ? 'Leave Defensive Stance (no AP)'
      : 'Take Defensive Stance (no AP)'; }
  if (!WAR) { const a = actor(), p = a && a.powers.find(x => x.name === $('q-power').value);
    $('q-power-note').textContent = !a ? '' : a.powers.length === 0 ? a.id +
      ' has no Spirit or other pool to pay for a power of the catalogue.' : p ? 'Range ' +
      (p.range === 'touch' ? 'touch' : p.range + '"') + ', ' + p.element + ', ' +
      (p.damage ? p.damage + ' damage' : 'no damage') + ', on the target.' : ''; }
}
// --- choosing an action -----------------------------------------------------------------------
function pick(kind) {
  action = kind;
  for (const b of document.querySelectorAll('#actions .act'))
    b.setAttribute('aria-pressed', String(b.dataset.action === kind));
  for (const part of document.querySelectorAll('#play .action'))
    part.hidden = part.dataset.action !== kind;
}
for (const b of document.querySelectorAll('#actions .act'))
  b.addEventListener('click', () => pick(b.dataset.action));
// after every command: nothing carried into the next one (Boon, Maneuvers, modifiers, dice)
function resetOptions() {
  for (const box of document.querySelectorAll('#a-' + KIND + ' input, #play fieldset.action input'))
    if (box.type === 'checkbox') box.checked = false;
    else if (box.type === 'number' && !/^q-[xyz]$/.test(box.id)) box.value = box.min || '0';
    else if (box.type !== 'number') box.value = '';
  queued = []; if (!WAR) showQueue();
  hideSuggestion(); pick(KIND); aimNearest();
  const a = actor(), p = a && ((rowOf(a.id) || {}).position || a.position);
  if (p) ['q-x', 'q-y', 'q-z'].forEach((id, i) => { $(id).value = p[i]; });
  showCosts(); oddsSoon();
}
// the options are reset as the command is sent; a refused command gets them back to correct
function snapshot() {
  const kept = [...document.querySelectorAll('#play input, #play select')]
    .map(n => [n, n.value, n.checked]);
  const q = queued, kind = action;
  return () => { for (const [n, value, checked] of kept) { n.value = value; n.checked = checked; }
    queued = q; if (!WAR) showQueue(); pick(kind); showCosts(); oddsSoon(); };
}
async function act(kind, args, extra) {
  const restore = snapshot(); resetOptions();
  const answer = await post('/commands', {kind: kind, args: args, ...(extra || {})});
  if (!answer) restore();
  return answer;
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
    try { queued.push(attackItem()); showQueue(); nextHand(); }
    catch (e) { report(e.message); } });
  $('p-clear').addEventListener('click', () => { queued = []; showQueue(); nextHand(); });
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
const share = p => p <= 0 ? '0 %' : p < 0.01 ? 'under 1 %' : p > 0.99 && p < 1 ? 'over 99 %'
  : Math.round(100 * p) + ' %';
const about = m => String(Math.round(m * 10) / 10);
const above0 = d => d.values.filter(v => v.value > 0).reduce((s, v) => s + v.eq.p, 0);
function showWarOdds(body) {
  const o = body.odds, d = o.distributions, e = o.chances.epic;
  const kind = o.wear_kinds[0], wear = d['wear_' + kind];
  $('odds-summary').textContent = share(above0(wear)) + ' to deal Wear, ' + about(wear.mean) +
    ' ' + kind + ' Wear on average · ' + share(o.defeat.p) + ' to Defeat ' + o.defender +
    ' · ' + body.ap_cost + ' AP';
  const defeat = el('strong', 'P(Defeat) ' + pct(o.defeat.p)); defeat.id = 'odds-defeat';
  $('odds-more').replaceChildren(defeat, el('span', ' · uncanceled Hits mean ' +
    d.uncanceled_hits.mean.toFixed(2) + ' · Epic Strike ' + pct(e.strike.p) +
    ', Epic Defense ' + pct(e.defense.p) + ' · Wear to the Striker (' +
    o.wear_to_striker_kind + ') mean ' + d.wear_to_striker.mean.toFixed(2) + ' · ' +
    body.ap_cost + ' AP · Adjustments: ' + (body.policy === 'best' ? 'the best ones'
      : 'none')));
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
  $('odds-summary').textContent = body.attacks.map(a => share(a.whole.hit.p) + ' to hit, ' +
    share(above0(a.whole.damage)) + ' to deal damage, ' + about(a.whole.damage.mean) +
    ' damage on average · ' + share(a.whole.defeat.p) + ' to bring ' + a.defender +
    ' to 0 HP').join('; ');
  const defeat = el('strong', 'P(defeat) ' + all(a => pct(a.whole.defeat.p)));
  defeat.id = 'odds-defeat';
  $('odds-more').replaceChildren(defeat, el('span', ' · P(hit) ' +
    all(a => pct(a.whole.hit.p)) + ' · damage mean ' +
    all(a => a.whole.damage.mean.toFixed(2)) + ' · at ' + all(a => a.whole.hp) + ' HP'));
  $('odds-laws').replaceChildren(...tables);
}
let oddsTimer = null, oddsAsked = 0;
function oddsSoon() { clearTimeout(oddsTimer); oddsBody = null;  // its AP: for the old options
  oddsTimer = setTimeout(fetchOdds, 250); }
async function fetchOdds() {
  const mine = ++oddsAsked;
  if (!$('p-actor').value || !$('p-target').value) return;
  if (state.ended || !state.current) {
    $('odds-summary').textContent = 'Odds are shown while the fight is on.'; return; }
  let args;
  try { args = playArgs(); } catch (e) { $('odds-summary').textContent = e.message; return; }
  const r = await fetch(api + '/odds', {method: 'POST', headers: auth,
    body: JSON.stringify({kind: KIND, args: args})}).catch(() => null);
  if (!r) { if (mine === oddsAsked) $('odds-summary').textContent =
    'No odds: the server cannot be reached.'; return; }
  const body = await jsonOf(r);
  if (mine !== oddsAsked) return;
  oddsBody = r.ok ? body : null; showCosts();
  if (!r.ok) { $('odds-summary').textContent = body.error; $('odds-laws').replaceChildren();
    $('odds-more').replaceChildren(); return; }
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
  const restore = snapshot(); resetOptions();
  if (!await post('/commands', body)) restore();
}
$('roll').addEventListener('click', () => {
  try { send(playArgs(), null); } catch (e) { report(e.message); } });
$('use-dice').addEventListener('click', async () => {
  let args, d;
  try { args = playArgs(); d = typedDice(args); } catch (e) { report(e.message); return; }
  const r = await reach(api + '/preview', {method: 'POST', headers: auth,
    body: JSON.stringify({kind: KIND, args: args, dice: d})});
  if (!r) return;
  const answer = await jsonOf(r);
  if (!r.ok && r.status === 403 && /\(W-52\)/.test(answer.error)) {  // Strife: stage by stage
    report(answer.error); hideSuggestion(); return;
  }
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
    'The best Adjustments for you would be:' : 'No Adjustment is worth making: the dice stand.';
  $('suggestion-steps').replaceChildren(...answer.adjustments.map(a => el('li', 'die ' +
    (a.die + 1) + ': ' + a.from + ' → ' + a.to + ' (' + a.by + ')')));
  $('suggestion-lines').replaceChildren(...lines(answer.record).slice(1).map(l => el('div', l)));
  $('suggestion').hidden = false;
});
$('my-dice').addEventListener('keydown', ev => {  // Enter: as Use my dice (issue 21)
  if (ev.key === 'Enter') { ev.preventDefault(); $('use-dice').click(); } });
if ($('steps')) $('steps').addEventListener('keydown', ev => {
  if (ev.key === 'Enter') { ev.preventDefault(); $('apply-steps').click(); } });
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
// faces stay within 1–12 (M-12): said at once for the seven dice typed (with Boon or Bane
// dice discarded first, the server says it)
function checkSteps(steps, dice) {
  if (!Array.isArray(dice) || dice.length !== 7) return;
  const faces = [...dice];
  for (const step of steps) {
    if (step.die >= faces.length) throw new Error('There is no die ' + (step.die + 1) +
      ': the Strike has ' + faces.length + ' dice.');
    const to = faces[step.die] + step.delta;
    if (to < 1 || to > 12) throw new Error('Die ' + (step.die + 1) + ' cannot be adjusted to ' +
      to + '; faces stay within 1–12.');
    faces[step.die] = to;
  }
}
if (WAR) {
  $('change').addEventListener('click', () => { if (!pending) return;
    $('steps').value = pending.steps.map(stepText).join(','); $('change-box').hidden = false; });
  $('apply-steps').addEventListener('click', () => {
    if (!pending) return;
    try { const steps = parseSteps($('steps').value); checkSteps(steps, pending.dice);
      send({...pending.args, mode: 'explicit', steps: steps}, pending.dice);
    } catch (e) { report(e.message); }
  });
}
// --- the panel's events ---------------------------------------------------------------------
$('play').addEventListener('input', () => { oddsSoon(); showCosts(); });
$('play').addEventListener('change', ev => {
  if (ev.target.id === 'p-actor') { fillActor(); aimNearest(); show(state); }
  if (ev.target.id === 'p-target') fillTarget();
  oddsSoon(); showCosts();
});
$('play').addEventListener('submit', ev => ev.preventDefault());
// --- every action of the game, sent from its button -------------------------------------------
const me = () => $('p-actor').value;
const on = (id, fn) => { const b = $(id); if (b) b.addEventListener('click', () => {
  try { fn(); } catch (e) { report(e.message); } }); };
const whole = (id, what) => { const n = Number($(id).value);
  if (!Number.isInteger(n) || n < 1) throw new Error(what + ' must be a whole number from 1, not "' +
    $(id).value + '".');
  return n; };
function to() {
  const p = destination();
  if (!p.every(Number.isFinite) || ['q-x', 'q-y', 'q-z'].some(id => $(id).value === ''))
    throw new Error('Give the point to move to as three numbers x, y and z (inches).');
  return p;
}
on('q-next', () => act('next', {}));
on('q-move', () => act('move', WAR ? {id: me(), to: to()} : {id: me(), to: to(),
  ...($('q-difficult').checked ? {difficult: true} : {})}));
if (WAR) {
  on('q-stance', () => { const row = rowOf(me()), leave = !!(row && row.stance === true);
    act('stance', {id: me(), on: !leave, ...(!leave && $('q-full').checked ? {full: true} : {})});
  });
  on('q-rest', () => act('rest', {id: me(), ap: whole('q-ap', 'The AP to rest')}));
  on('q-ready', () => act('stand_ready', {id: me(), ap: whole('q-ready-ap', 'The AP to hold'),
    uses: [$('q-use1').value, $('q-use2').value].filter(u => u)}));
  on('q-carry', () => act('carry_over', {id: me(), ap: whole('q-carry-ap', 'The AP to carry')}));
  on('q-break', () => act('break_free', {id: me()}));
  on('q-interpose', () => act('interpose', {id: me(), striker: $('q-i-striker').value,
    defender: $('q-i-defender').value, ...($('q-i-ranged').checked ? {ranged: true} : {})}));
} else {
  on('q-cast', () => { if (!$('q-power').value) throw new Error(me() +
    ' has no power to cast: none of the catalogue is paid from its pools.');
    act('cast', {caster: me(), targets: [$('p-target').value], power: $('q-power').value}); });
  on('q-do-instant', () => { const name = $('q-instant').value.trim();
    if (!name) throw new Error('Say what the Instant is (for example "Draw a weapon").');
    act('instant', {id: me(), name: name}); });
  on('q-do-whole', () => { const kind = $('q-whole').value, args = {id: me(), kind: kind};
    if (kind === 'sprint') args.to = to();
    if (kind === 'skill' && $('q-skill').value.trim()) args.skill = $('q-skill').value.trim();
    act('whole_turn', args); });
  on('q-hide', () => act('hide', {id: me()}));
  on('q-roll-blow', () => act('roll_with_the_blow', {id: me(), to: to()}));
  on('q-aoo', () => { const mine = options.offers.filter(o => o.attacker === me());
    const o = mine[Number($('q-offer').value)];
    if (!o) throw new Error(me() + ' has no Attack of Opportunity on offer now (S-18).');
    act('aoo', {attacker: o.attacker, target: o.target, weapon: o.weapon}); });
  const test = id => $(id).value ? {test: $(id).value} : {};
  const said = (id, what) => { const t = $(id).value.trim();
    if (!t) throw new Error('Say ' + what + '.'); return t; };
  on('q-do-act', () => act('act', {id: me(), kind: $('q-act-kind').value,
    name: said('q-act-name', 'what the act is (for example "Bar the door")'),
    ...test('q-act-test')}));
  on('q-do-react', () => { const trigger = $('q-react-trigger').value.trim();
    act('react', {id: me(), kind: $('q-react-kind').value,
      name: said('q-react-name', 'which Reaction it is (for example "Counterspell")'),
      ...(trigger ? {trigger: trigger} : {}), ...test('q-react-test')}); });
  on('q-pick-up', () => { const g = list(state.ground)[Number($('q-ground').value)];
    if (!g) throw new Error('No weapon lies on the ground to pick up (SA-72).');
    act('pick_up', {id: me(), weapon: g.weapon}); });
  on('q-disengage', () => act('disengage', {id: me(), to: to(),
    ...($('q-difficult').checked ? {difficult: true} : {})}));
}
// --- the Host's tools -------------------------------------------------------------------------
if (HOSTING) {
  on('h-start', () => WAR ? act('next', {}) : act('start', $('h-ambush').value
    ? {ambush: $('h-ambush').value} : {}));
  on('h-end', () => act('end_combat', {}));
  on('h-npc', () => post('/npc_turn', {}));  // the NPC policy, through the engine (SA-98)
  on('h-apply', () => WAR ? act('apply_effect', {id: $('h-who').value,
    effect: $('h-effect').value, amount: Number($('h-amount').value || 1)})
    : act('condition', {id: $('h-who').value, name: $('h-condition').value,
      ...($('h-rounds').value ? {rounds: whole('h-rounds', 'The rounds')} : {})}));
  on('h-unapply', () => act('end_condition', {id: $('h-who').value,
    name: $('h-condition').value}));
  on('h-forced', () => { const p = ['h-f-x', 'h-f-y', 'h-f-z'].map(id => $(id).value);
    if (p.some(x => x === '' || !Number.isFinite(Number(x)))) throw new Error(
      'Give the point the model is forced to as three numbers x, y and z (inches).');
    act('forced_move', {id: $('h-f-who').value, kind: $('h-f-kind').value, by: $('h-f-by').value,
      to: p.map(Number)}); });
  on('h-water', () => act('water', {id: $('h-w-who').value,
    ...($('h-w-out').checked ? {submerged: false} : {})}));
  on('h-remove', () => act('remove', {id: $('h-remove-who').value}));
  for (const step of ['undo', 'redo']) on(step, () => post('/' + step, {}));
}
// --- the Host's advanced box: any command as JSON (players do not get it) ----------------------
if ($('command')) $('command').addEventListener('submit', ev => {
  ev.preventDefault(); const f = ev.target; let args;
  try { args = JSON.parse(f.args.value || '{}'); }
  catch (e) { report('The arguments are not JSON: ' + e.message); return; }
  const body = {kind: f.kind.value, args: args};
  if (f.dice.value.trim()) body.dice = f.dice.value.split(',').map(Number);
  if (f.hidden && f.hidden.checked) body.hidden = true;
  post('/commands', body);
});
// --- the map: a token tapped is the target, a token dragged moves ---------------------------
document.addEventListener('tableside:target', ev => {
  const id = ev.detail && ev.detail.id, a = actor();
  if (!a || !a.targets.some(t => t.id === id)) return;
  $('p-target').value = id; fillTarget(); showCosts(); oddsSoon();
});
document.addEventListener('tableside:move', ev => {
  const d = ev.detail || {};
  if (!d.id || !Array.isArray(d.to) || d.to.length !== 3) return;
  ev.preventDefault();  // the panel sends it: the map does not send it a second time
  act('move', {...(d.args || {}), id: d.id, to: d.to.map(Number)});
});
// --- the options: asked at first and after every record ----------------------------------------
async function loadOptions() {
  const r = await fetch(api + '/options', {headers: auth}).catch(() => null);
  if (!r || !r.ok) return;
  const first = options === null; options = await r.json();
  if (options.seat) showSeat(options.seat);
  choose($('p-actor'), options.actors.map(a => [a.id, a.id]), true);
  const held = options.controlled || [];  // its own models under another's control (SA-97)
  $('p-controlled').hidden = !held.length;
  $('p-controlled').textContent = held.map(c => c.id + ' is controlled by ' + c.by +
    ': its commands are sent by the seat that plays ' + c.by + '.').join(' ');
  if (first && WAR) for (const m of options.maneuvers) {
    const box = el('input'); box.type = 'checkbox'; box.value = m.name;
    const label = el('label', ' ' + m.name + (m.ap_cost ? ' (+' + m.ap_cost + ' AP)' : ''),
      'check');
    label.title = m.notes; label.prepend(box); $('p-maneuvers').append(label);
  }
  fillActor();
  if (first) { lastTurn = state.current;
    if (options.actors.some(a => a.id === state.current)) $('p-actor').value = state.current;
    fillActor(); aimNearest(); }
  showTurn(state); show(state); oddsSoon();
}
window.loadOptions = loadOptions;
// the viewer's seat as it is now (W-36): the Host may have edited it while the page was open
function showSeat(seat) {
  const now = seat.characters;
  if (now.join('\n') === boot.characters.join('\n')) return;
  boot.characters.splice(0, boot.characters.length, ...now);
  $('me').textContent = 'you are ' + seat.name + (now.length ? ' (' + now.join(', ') + ')' : '');
  document.dispatchEvent(new CustomEvent('tableside:seat', {detail: {characters: now}}));
}
// the server ends a seat's stream when the Host edits it (W-28): back again, ask anew
let streamOpened = false;
source.addEventListener('open', () => { if (streamOpened) loadOptions(); streamOpened = true; });
onState(s => { showTurn(s); if (!options) return;
  const a = actor(), p = a && rowOf(a.id) && rowOf(a.id).position;
  if (p && action !== 'move' && !['q-x', 'q-y', 'q-z'].includes(document.activeElement.id))
    ['q-x', 'q-y', 'q-z'].forEach((id, i) => { $(id).value = p[i]; });
  showValues(); showCosts(); });
pick(KIND); show(state); loadOptions();
})();
