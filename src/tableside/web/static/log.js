// The log: one card per record, in plain words first, with its dice as chips and the full
// breakdown behind a toggle. ONE renderer (logCard) draws the records of the page's boot data on
// load and every record the stream brings later (docs/web.md W-24). A value concealed from this
// viewer (W-1) arrives as the string "secret": it is said in words ("hidden"), never read as a
// number or as a flag that happened (W-25).
const words = t => String(t).replace(/_/g, ' ');
let logCard = null, lines = null;
(() => {
const SECRET = 'secret';
const known = v => v !== SECRET && v !== undefined && v !== null;
const shown = (v, hidden) => known(v) ? String(v) : (hidden || 'hidden');
const isObject = v => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = v => Array.isArray(v) ? v : [];
const count = (k, one, many) => (known(k) ? k : 'some') + ' ' +
  (k === 1 ? one : (many || one + 's'));
const article = w => /^[aeiou]/i.test(w) ? 'an ' + w : 'a ' + w;
const BY = {host: 'the Host', timeout: 'the deadline: the suggestion', cli: 'the command line'};
const byWords = by => BY[by] || (String(by).startsWith('seat:') ? 'a player' : String(by));
const choiceWord = v => v === null || v === undefined ? 'none' : typeof v === 'string' ? words(v)
  : Array.isArray(v) ? v.join(', ') : JSON.stringify(v);
const place = p => Array.isArray(p) ? '(' + p.map(x => Number(x).toFixed(1).replace(/\.0$/, ''))
  .join(', ') + ')' : 'a hidden place';
// a concealed value that slipped through as the word itself is said as "hidden" (W-25)
const line = (text, cls) => el('div', text.replace(/\bsecret\b/g, 'hidden'),
  'line' + (cls ? ' ' + cls : ''));
const hidden = el('span', '', 'visually-hidden');  // template for screen-reader-only words
const srOnly = text => { const n = hidden.cloneNode(); n.textContent = text; return n; };

// --- dice chips: what each die counts as, in colour, a symbol and words (not colour alone) ---
const WAR_FACE = f => f === 12 ? ['twelve', '★', 'a 12, a Hit'] : f === 1 ? ['one', '!', 'a 1, a Stop']
  : f >= 9 ? ['hit', '✓', 'Hit'] : f >= 4 ? ['miss', '·', 'Miss'] : ['stop', '✕', 'Stop'];
function chip(text, cls, mark, label, typed, by) {
  const c = el('span', text, 'chip ' + cls + (typed ? ' typed' : ''));
  if (mark) c.append(el('b', mark));
  if (by) { const who = el('small', ' by ' + by); who.setAttribute('aria-hidden', 'true');
    c.append(who); }
  c.append(srOnly(' (' + label + (typed ? ', typed' : '') + ')'));
  c.title = label + (typed ? ', typed at the table' : '');
  return c;
}
function strikeChips(s, r, typed) {
  const out = el('div', '', 'line dice'), rolled = list(s.rolled), final = list(s.final);
  const dropped = new Set(list(s.discarded_indices));
  const name = who => who === 'striker' ? s.striker : who === 'defender' ? s.defender : who;
  let kept = 0;
  rolled.forEach((v, i) => {
    if (dropped.has(i)) { const c = chip('', 'discarded', '⊘', 'discarded by Boon/Bane', typed);
      c.prepend(el('s', String(v))); out.append(c); return; }
    const f = known(final[kept]) ? final[kept] : v;
    const moved = list(s.adjustments).filter(a => a.die === kept);
    const [cls, mark, label] = WAR_FACE(f);
    const text = moved.length ? v + '→' + f : String(f);
    const by = moved.map(a => name(a.by)).filter((x, j, xs) => xs.indexOf(x) === j).join(', ');
    out.append(chip(text, cls + (moved.length ? ' adjusted' : ''), mark,
      label + (moved.length ? ', adjusted by ' + by : ''), typed, by)); kept++;
  });
  return out;
}
function d100Chip(v, outcome, typed) {
  const o = String(outcome || '');
  const [cls, mark, label] = /^critical_(hit|cast)$/.test(o) ? ['crit', '★', 'critical']
    : /^(critical_miss|miscast)$/.test(o) ? ['fumble', '!', words(o)] : ['natural', '', 'd100'];
  return chip(String(v), cls, mark, label, typed);
}
function attackChips(s, typed) {
  const out = el('div', '', 'line dice');
  const w = s.ward_off;  // every die rolled or typed shows, the Ward-off's d20s first
  if (isObject(w)) for (const x of [w.acting, w.opposing]) if (isObject(x) && known(x.natural))
    out.append(chip(String(x.natural), 'reaction', '', 'd20 Ward-off, ' + shown(x.label), typed));
  list(s.naturals).forEach((v, i) => out.append(d100Chip(v, i === 0 ? s.outcome : '', typed)));
  const r = s.reaction;
  if (isObject(r) && known(r.roll)) out.append(chip(String(r.roll), 'reaction', '',
    'd20 ' + words(r.kind), typed));
  const d = isObject(s.damage) ? s.damage : null;
  if (d) list(d.rolls).forEach(v => out.append(chip(String(v), 'damage', '',
    'damage ' + shown(d.dice), typed)));
  for (const x of list(s.effects)) if (x.kind === 'percent')
    out.append(chip(String(x.roll), x.applied ? 'hit' : 'miss', '', x.name + ' d100', typed));
  return out;
}

// --- plain sentences --------------------------------------------------------------------------
function wearPhrase(who, w) {
  if (!isObject(w)) return '';
  return who + ' takes ' + (known(w.amount) ? w.amount + ' Wear' : 'Wear') + ' (' +
    shown(w.kind) + ')';
}
function strikeSentence(s) {
  const how = list(s.maneuvers).length ? ' (' + s.maneuvers.join(', ') + ')' : '';
  const head = s.striker + ' strikes ' + s.defender + ' with ' +
    (s.weapon ? article(s.weapon) : 'bare hands') + how + ': ' + (s.epic ? 'Epic! ' : '') +
    count(s.hits, 'Hit') + ', ' + count(s.stops, 'Stop');
  const then = [];
  if (s.uncanceled_hits > 0 && isObject(s.wear)) then.push(wearPhrase(s.defender, s.wear));
  for (const w of list(s.additional_wear)) if (isObject(w) && known(w.amount) && w.amount > 0)
    then.push(wearPhrase(s.defender, w));
  if (isObject(s.wear_to_striker)) then.push(wearPhrase(s.striker, s.wear_to_striker) +
    ' from Defensive Hits');
  if (s.defender_status_change) then.push(s.defender + ' is ' + words(s.defender_status_change));
  if (s.striker_status_change) then.push(s.striker + ' is ' + words(s.striker_status_change));
  if (!then.length) then.push(s.uncanceled_stops > 0 ? 'stopped, no Wear' : 'no Wear');
  return head + ' → ' + then.join(', ');
}
function hpLeft(r, id) {
  const e = list(r.events).filter(x => x.kind === 'hp_set' && x.data.id === id).pop();
  if (!e) return '';
  const hp = e.data.hp;
  return hp === 'down' || (known(hp) && hp <= 0) ? ' (' + id + ' is down)'
    : known(hp) ? ' (' + id + ' ' + hp + ' HP left)' : '';
}
function attackSentence(s, r) {
  const out = [s.attacker + ' attacks ' + s.defender + ' with ' +
    (s.weapon ? article(s.weapon) : 'bare hands') + (s.precision === true ? ' (Precision Attack)'
    : '')];
  if (s.warded_off === true) return out[0] + ': warded off';
  let roll = '';
  if (s.natural !== null && s.natural !== undefined) {
    roll = ': ' + (known(s.modified) ? s.modified : 'rolled ' + shown(s.natural)) +
      (known(s.ac) ? ' vs AC ' + s.ac : '') + ' — ' + words(shown(s.outcome));
  }
  const re = s.reaction;
  if (isObject(re)) roll += '; ' + s.defender + "'s " + words(re.kind) + ' ' +
    words(shown(re.result)) + ['stopped', 'disarmed', 'item_damaged']
    .filter(f => re[f] === true).map(f => ', ' + words(f)).join('');
  const d = isObject(s.damage) ? s.damage : null;
  if (d) roll += ' → ' + (known(d.total) ? d.total + ' damage' : 'damage (a hidden amount)') +
    hpLeft(r, s.defender);
  const gets = list(s.effects).filter(x => x.kind === 'condition').map(x =>
    (x.target === 'attacker' ? s.attacker : s.defender) + ' gets ' + x.name);
  return out[0] + roll + (gets.length ? '; ' + gets.join(', ') : '');
}
function otherResult(s) {
  if (s.caster) return s.caster + ' casts ' + (s.power || 'a power') + ' on ' +
    (s.target || 'nobody') + ': d100 ' + shown(s.natural) + ' — ' + words(shown(s.outcome));
  return null;
}
// one phrase per event that says something to a player; the rest stay in the details
const FORCED = {knock_back: 'Knock Back', fear: 'Fear', taunt: 'Taunt',
  mind_control: 'Mind Control'};
const testWords = d => known(d.winner) ? (d.winner === 'acting' ? d.id : shown(d.target)) +
  ' wins the roll-off' + (d.winner === 'acting' ? ' against ' + shown(d.target) : ' against ' +
  d.id) : d.success === true ? d.id + ' passes the test' : d.success === false ? d.id +
  ' fails the test' : d.id + "'s test: hidden";
const EVENT_WORDS = {
  moved: d => d.id + (d.forced ? ' is moved to ' : ' moves to ') + place(d.to) +
    (d.forced && FORCED[d.kind] ? ' by ' + (known(d.by) ? d.by + "'s " : '') + FORCED[d.kind] +
      (known(d.stopped_by) ? ', stopped by the ' + d.stopped_by : '') : '') +
    (known(d.inches) ? ', ' + d.inches + '″' : ''),
  weapon_thrown: d => d.id + ' throws the ' + shown(d.weapon) + ': it lies at ' + place(d.at),
  picked_up: d => d.id + ' picks up the ' + shown(d.weapon) + (d.hand ? ' in the ' +
    words(d.hand) : ''),
  submerged_set: d => d.id + (!known(d.submerged) ? ' is put under water or taken out (hidden)'
    : d.submerged === true ? ' is now under water' : ' is out of the water'),
  // an act's or a reaction's test: its note already names it ("Full Action: Bar the door")
  test_resolved: d => testWords(d) + (known(d.purpose) && !String(d.purpose).includes(': ')
    ? ' (' + words(d.purpose) + ')' : ''),
  turn_started: d => (d.cycle !== undefined ? 'Cycle ' + d.cycle + ', Turn ' + (d.turn + 1) +
    ': ' : d.round !== undefined ? 'Round ' + d.round + ': ' : '') + d.id + "'s Turn" +
    (known(d.ap) ? ', ' + d.ap + ' AP' : ''),
  turn_ended: d => d.id + "'s Turn ends",
  turn_skipped: d => d.id + "'s Turn is skipped (" + words(d.reason) + ')',
  cycle_started: d => 'Cycle ' + d.cycle + ' begins',
  round_started: d => 'Round ' + d.round + ' begins',
  stance_set: d => d.id + (d.on ? ' takes a Defensive Stance' : ' leaves the Defensive Stance'),
  wear_taken: d => wearPhrase(d.id, d),
  defeated: d => d.id + ' is defeated',
  status_lowered: d => d.id + ' is ' + words(d.status || 'weaker'),
  combatant_added: d => d.id + ' joins the fight' + (d.side ? ' (' + d.side + ')' : ''),
  model_added: d => d.id + ' joins the fight' + (d.side ? ' (' + d.side + ')' : ''),
  combatant_removed: d => d.id + ' leaves the fight',
  model_removed: d => d.id + ' leaves the fight',
  war_ended: d => 'The fight ends: ' + (d.winner ? d.winner + ' win' : 'nobody wins'),
  fight_ended: d => 'The fight ends: ' + (d.winner ? d.winner + ' win' : 'nobody wins'),
  condition_added: d => d.id + ' gains ' + (isObject(d.condition) ? d.condition.name : 'a condition'),
  condition_ended: d => d.id + ' is no longer ' + (d.name || 'affected'),
  condition_set: d => d.value === null || d.value === false ? d.id + ' is no longer ' +
    words(d.name) : d.id + ' is ' + words(d.name),
  timed_added: d => d.id + ' gains ' + d.name,
  timed_expired: d => d.name + ' on ' + d.id + ' ends',
  hp_set: d => d.hp === 'down' || (known(d.hp) && d.hp <= 0) ? d.id + ' is down'
    : known(d.hp) ? d.id + ' has ' + d.hp + ' HP' : d.id + "'s HP change",
  falter_set: d => d.falter === 0 ? '' : known(d.falter) ? d.id + ' Falters (' + d.falter +
    ')' : d.id + ' Falters',
  poison_set: d => known(d.poison) ? d.id + ' is Poisoned (' + d.poison + ')' : d.id + ' is Poisoned',
  hidden_set: d => d.id + (d.hidden ? ' hides' : ' is seen again'),
  check_resolved: d => d.id + ' ' + words(d.purpose || 'Check') + ': ' +
    words(isObject(d.result) ? shown(d.result.outcome) : 'done'),
  note: d => !d.text ? '' : d.act ? d.id + ' takes ' + article(shown(d.text))
    : d.reaction ? d.id + ' reacts with ' + article(shown(d.text)) + (known(d.trigger) ? ' (to ' +
      d.trigger + ')' : '') : (d.id ? d.id + ': ' : '') + shown(d.text),
};
// events of a roll that its sentence already tells
const TOLD = new Set(['strike_resolved', 'attack_resolved', 'cast_resolved', 'wear_taken',
  'hp_set', 'status_lowered', 'condition_added']);
// a command named as a player would: "Jackal's Strike", "the end of the Turn"
const COMMAND_WORDS = {next: 'the end of the Turn', start: 'the start of the fight',
  end: 'the end of the fight'};
const NOUNS = {strike: 'Strike', attack: 'attack', cast: 'cast', move: 'Move', stance: 'Stance',
  rest: 'Rest', ready: 'Stand Ready', carry: 'Carry Over', break_free: 'Break Free',
  interpose: 'Interpose', add: 'joining', remove: 'removal', check: 'Check', act: 'act',
  react: 'Reaction', pick_up: 'pick-up', water: 'water', forced_move: 'forced move'};
function actorOf(c) {
  const a = (c && c.args) || {};
  const who = a.striker || a.attacker || a.caster || a.id || a.combatant || '';
  return typeof who === 'string' ? who : '';
}
function commandWords(c) {
  if (!c) return 'a command';
  if (COMMAND_WORDS[c.kind]) return COMMAND_WORDS[c.kind];
  const what = NOUNS[c.kind] || words(c.kind);
  return actorOf(c) ? actorOf(c) + "'s " + what : 'the ' + what;
}
const capital = t => t.charAt(0).toUpperCase() + t.slice(1);
// a roll's result, its combatants named as in this encounter (W-62): the event's ids, never the
// sheet's name ("Brute strikes Goblin 2", not "Fallen Warrior strikes Goblin")
const ROLES = ['striker', 'defender', 'attacker', 'caster', 'target'];
function resultOf(e) {
  if (!isObject(e.data) || !isObject(e.data.result)) return null;
  const out = {...e.data.result};
  for (const k of ROLES) if (typeof e.data[k] === 'string' && k in out) out[k] = nameOf(e.data[k]);
  return out;
}
function sentence(r) {
  const phrases = [], events = list(r.events);
  let roll = false;
  for (const e of events) {
    const s = resultOf(e);
    if (s && s.schema === 'tableside/majesty-strike') { phrases.push(strikeSentence(s)); roll = true; }
    else if (s && s.schema === 'tableside/strife-attack') { phrases.push(attackSentence(s, r)); roll = true; }
    else if (s && otherResult(s)) { phrases.push(otherResult(s)); roll = true; }
  }
  for (const e of events) {
    if (roll && (TOLD.has(e.kind) || e.kind === 'ap_set')) continue;
    const say = EVENT_WORDS[e.kind];
    const text = say && isObject(e.data) ? say(e.data) : '';
    if (text && !phrases.join('; ').includes(text)) phrases.push(text);
    if (!roll && e.kind === 'ap_set' && isObject(e.data) && known(e.data.ap) && e.data.action)
      phrases.push(e.data.id + ' spends ' + shown(e.data.spent) + ' AP (' + e.data.action +
        '), ' + e.data.ap + ' AP left');
  }
  return phrases.length ? phrases.join('; ') : capital(commandWords(r.command));
}
// the questions asked so far, by id: an answer names the question it answers
const questions = new Map();
const CHOICES = {approve: 'approval', adjustments: 'Adjustments', obstruction: 'Obstruction',
  reaction: 'Reaction'};
const question = q => (q.combatant ? q.combatant + "'s " : "the Host's ") +
  (CHOICES[q.kind] || words(q.kind));
function asked(data) {
  return list(data.requests).map(q => { if (q.id) questions.set(q.id, q);
    return question(q); }).join(', ');
}
const DECIDED = {host: 'the Host', timeout: 'the deadline (the suggestion)',
  cli: 'the command line'};
const decidedBy = by => DECIDED[by] || (String(by).startsWith('seat:') ? 'a player'
  : String(by));
const answerWords = v => isObject(v) && v.mode ? words(v.mode) : v === true ? 'yes'
  : v === false ? 'no' : choiceWord(v);
function decisionSentence(r) {
  const c = r.command || {}, data = r.data || {}, what = commandWords(c);
  if (r.kind === 'request') return capital(what) + ' waits for a decision: ' + asked(data);
  const a = data.answer || {}, q = questions.get(a.request), then = asked(data);
  const which = q ? capital(question(q)) + ': ' : 'Decision: ';
  const head = which + answerWords(a.value) + ', decided by ' + decidedBy(a.by);
  if (data.outcome === 'withdrawn') return head + ' — ' + what + ' is withdrawn';
  if (data.outcome === 'resolved' && list(r.events).length) return sentence(r) + ' (' + head +
    ')';
  return capital(head) + (then ? '; now waiting for ' + then : '');
}
function say(r) {
  if (r.kind === 'undo') return 'Undo: ' + commandWords(r.command) + ' is taken back';
  if (r.kind === 'redo') return 'Redo: ' + commandWords(r.command) + ' is made again';
  if (r.kind === 'request' || r.kind === 'answer') return decisionSentence(r);
  return sentence(r);
}

// --- the full breakdown (behind the details toggle) --------------------------------------------
const labelled = ps => Array.isArray(ps) && ps.length ? ' (' + ps.map(p => p.label + ' ' +
  shown(p.amount)).join(', ') + ')' : '';
const sgn = v => known(v) ? signed(v) : 'hidden';
const wearLine = w => 'Wear ' + shown(w.kind) + ': base ' + shown(w.base) + ' (' +
  shown(w.hits) + ' hits, Force ' + shown(w.force) + '), flat ' + sgn(w.flat) + ', ' +
  sgn(w.percent) + '% (' + sgn(w.delta) + '), minimum ' + shown(w.minimum) + ' → ' +
  shown(w.amount);
const value = x => isObject(x) ? shown(x.value) : shown(x);
function strikeLines(e, s) {
  const adj = list(s.adjustments).map(a => a.by + ' ' + a.from + '→' + a.to).join(', ');
  const out = [e.kind + ' ' + s.striker + ' → ' + s.defender + ' with ' +
    (s.weapon || 'no weapon') + list(s.maneuvers).map(m => ' + ' + m).join('') +
    '  [' + (e.rule || '-') + ']',
    'Precision ' + value(s.precision) + ' · Guard ' + value(s.guard) + ' · Force ' +
    value(s.force),
    'rolled ' + dice(list(s.rolled)) + ' → final ' + dice(list(s.final)) +
    (adj ? ' (' + adj + ')' : ''),
    s.hits + ' hits, ' + s.stops + ' stops → ' + s.uncanceled_hits + ' hits uncanceled, ' +
    s.uncanceled_stops + ' stops'];
  const d = s.defender_after;
  if (isObject(s.wear) && isObject(d)) out.push(s.defender + ' takes ' + shown(s.wear.amount) + ' ' +
    shown(s.wear.kind) + ' Wear: Endurance ' + shown(d.endurance) + ', Resolve ' +
    shown(d.resolve) + ', Passion ' + shown(d.passion) + ', ' + shown(d.status));
  for (const a of list(s.adjustments)) out.push('Adjustment die ' + (a.die + 1) + ': ' + a.from +
    '→' + a.to + ' by ' + a.by + (known(a.why) ? ' — ' + a.why : ''));
  if (list(s.discarded).length) out.push('Boon/Bane ' + sgn(s.boon_net) + ': discarded ' +
    dice(s.discarded));
  if (s.epic) out.push('Epic ' + s.epic + ': ' + s.natural_unpaired_twelves +
    ' unpaired 12s, ' + s.natural_unpaired_ones + ' unpaired 1s in the natural roll');
  if (s.twelve_effects || s.passion_triggers || s.ap_gained || s.knock_back) out.push(
    'Effects fired: 12 Effects ' + s.twelve_effects_fired + ' of ' + s.twelve_effects +
    ', Passion Effects ' + shown(s.passion_applied) + ' of ' + shown(s.passion_triggers) +
    ', AP gained ' + shown(s.ap_gained) + ', Knock Back ' + s.knock_back + '"');
  for (const w of [s.wear, ...list(s.additional_wear)]) if (isObject(w)) out.push(wearLine(w));
  const back = s.wear_to_striker;
  if (isObject(back)) out.push(s.striker + ' takes ' + shown(back.amount) + ' ' +
    shown(back.kind) + ' Wear from ' + s.defensive_hits + ' Defensive Hits');
  if (s.defender_falter || s.striker_falter) out.push('Falter: ' + s.defender + ' ' +
    shown(s.defender_falter) + labelled(s.defender_falter_parts) + ', ' + s.striker + ' ' +
    shown(s.striker_falter));
  if (s.defender_status_change || s.striker_status_change) out.push('Status: ' + s.defender +
    ' ' + (s.defender_status_change || 'unchanged') + ', ' + s.striker + ' ' +
    (s.striker_status_change || 'unchanged'));
  out.push('rulings ' + list(s.rulings).join(', '));
  return out;
}
function attackEffect(x, s) {
  if (x.kind === 'percent') return x.name + ': d100 ' + x.roll + ' vs ' + shown(x.chance) +
    '% → ' + (x.applied ? 'applied' : 'not applied');
  if (x.kind === 'condition') return (x.target === 'attacker' ? s.attacker : s.defender) +
    ' gets ' + x.name + ' (' + x.source + ')';
  return shown(x.item) + ' damaged';
}
// a roll-off's winner by name ("Aldric"), its side's word when the name is not known
function rollOffWinner(w) {
  const side = isObject(w[w.winner]) ? w[w.winner] : null;
  return side && known(side.label) ? side.label : shown(w.winner);
}
function attackLines(e, s) {
  const out = [e.kind + ' ' + s.attacker + ' → ' + s.defender + ' with ' + s.weapon +
    (s.precision === true ? ' (Precision Attack)' : '') + '  [' + (e.rule || '-') + ']'];
  if (isObject(s.ward_off)) out.push('Ward-off roll-off: ' + [s.ward_off.acting,
    s.ward_off.opposing].filter(isObject).map(x => shown(x.label) + ' d20 ' + shown(x.natural) +
    ' → ' + shown(x.total)).map(x => x + ', ').join('') + rollOffWinner(s.ward_off) + ' wins' +
    (s.warded_off ? ', the attack is warded off' : ''));
  if (s.natural !== null && s.natural !== undefined) out.push('d100 ' +
    list(s.naturals).join(' ') + labelled(s.modifiers) + ' → ' + shown(s.modified) + ' vs AC ' +
    shown(s.ac) + ', Dodge ' + shown(s.dodge) + ': ' + words(shown(s.outcome)));
  const r = s.reaction;
  if (isObject(r)) out.push(words(r.kind) + ' with ' + list(r.items).join(', ') + ': d20 ' +
    shown(r.roll) + labelled(r.parts) + ' = ' + shown(r.total) + ', ' + shown(r.result) +
    (r.stopped === true ? ', stopped' : '') + (r.disarmed === true ? ', disarmed' : '') +
    (r.item_damaged === true ? ', item damaged' : ''));
  const d = isObject(s.damage) ? s.damage : null;
  const crit = d && typeof d.crit_multiplier === 'number' && d.crit_multiplier > 1;
  if (d) out.push('damage ' + shown(d.dice) + ': rolled ' + list(d.rolls).join(' ') +
    labelled(d.parts) + ' = ' + shown(d.total) + ' (' + shown(d.basis) + (crit ? ', ×' +
    d.crit_multiplier : '') + (typeof d.absorbed === 'number' && d.absorbed > 0 ? ', ' +
    d.absorbed + ' absorbed' : '') + ')');
  out.push(...list(s.effects).map(x => attackEffect(x, s)));
  out.push('rulings ' + list(s.rulings).join(', '));
  return out;
}
// the record's technical head: what the command line's log says of it
function recordHead(r) {
  const c = r.command || {}, data = r.data || {};
  const q = list(data.requests).map(x => (x.combatant || 'the Host') + ' (' + x.kind + ')')
    .join(', ');
  if (r.kind === 'command') return c.kind + ' ' + JSON.stringify(c.args || {});
  if (r.kind === 'request') return c.kind + ' (command ' + r.seq + ') waits for ' + q;
  if (r.kind === 'answer') { const a = data.answer || {};
    return 'answer (' + (c.kind || '?') + ', command ' + r.seq + '): ' +
      (a.value === null || a.value === undefined ? 'none' : typeof a.value === 'string' ?
      a.value : JSON.stringify(a.value)) + ' by ' + byWords(a.by) +
      (data.outcome ? ', ' + data.outcome : '') + (q ? '; then waits for ' + q : ''); }
  return r.kind + ' (' + (c.kind || '?') + ', command ' + r.seq + ')';
}
function breakdown(r) {
  const out = ['record ' + r.revision + ': ' + recordHead(r)];
  for (const e of list(r.events)) {
    const s = resultOf(e);
    if (s && s.schema === 'tableside/majesty-strike') out.push(...strikeLines(e, s));
    else if (s && s.schema === 'tableside/strife-attack') out.push(...attackLines(e, s));
    else { const say = EVENT_WORDS[e.kind], text = say && isObject(e.data) ? say(e.data) : '';
      out.push(e.kind + (text ? ': ' + text : '') + '  [' + (e.rule || '-') + ']'); }
  }
  return out;
}

// --- the card ---------------------------------------------------------------------------------
logCard = r => {
  const card = el('article', '', 'card-log ' + r.kind + (r.hidden ? ' hidden-roll' : ''));
  card.dataset.revision = r.revision; card.dataset.seq = r.seq; card.dataset.kind = r.kind;
  const typed = !!(r.command && ((Array.isArray(r.command.dice) && r.command.dice.length) ||
    (isObject(r.command.args) && isObject(r.command.args.rolled) &&
     Object.values(r.command.args.rolled).some(Array.isArray))));
  const main = line(say(r), 'say');
  if (r.hidden) main.prepend(el('span', 'Hidden from players: ', 'tag'));
  card.append(main);
  // the Host's note (W-52: steps past what a side has were dropped); a player's copy has none
  if (isObject(r.data) && typeof r.data.note === 'string') {
    const note = line(r.data.note, 'host-note'); note.prepend(el('span', 'Host only: ', 'tag'));
    card.append(note);
  }
  for (const e of list(r.events)) {
    const s = resultOf(e);
    const chips = s && s.schema === 'tableside/majesty-strike' ? strikeChips(s, r, typed)
      : s && s.schema === 'tableside/strife-attack' ? attackChips(s, typed) : null;
    if (!chips) continue;
    if (typed) chips.append(el('span', 'dice typed at the table', 'note'));
    card.append(chips);
  }
  const more = el('details', '', 'more'); more.append(el('summary', 'Details'));
  for (const text of breakdown(r)) more.append(line(text, 'detail'));
  const json = el('pre', JSON.stringify({command: r.command, events: r.events, data: r.data},
    null, 1), 'json');
  more.append(json); card.append(more);
  return card;
};
// the lines of a record's card as text (the play panel's preview shows them)
lines = r => [...logCard(r).querySelectorAll('.line')].map(n => n.textContent);

// undo strikes a command's cards out; redo brings them back (they share its seq)
function strike(seq, undone) {
  for (const c of $('log-box').querySelectorAll('article[data-seq="' + seq + '"]'))
    if (c.dataset.kind !== 'undo' && c.dataset.kind !== 'redo') {
      c.classList.toggle('undone', undone);
      let tag = c.querySelector('.undone-tag');
      if (undone && !tag) { tag = el('span', 'Undone: ', 'tag undone-tag');
        c.querySelector('.say').prepend(tag); }
      if (!undone && tag) tag.remove();
    }
}
function add(r) {
  $('log').append(logCard(r));
  if (r.kind === 'undo' || r.kind === 'redo') strike(r.seq, r.kind === 'undo');
}
for (const r of boot.log || []) add(r);
const box = $('log-box'), log = $('log');
box.scrollTop = box.scrollHeight;
// live region from here on: what is added now is announced, the history was not (W-24)
log.setAttribute('role', 'log'); log.setAttribute('aria-live', 'polite');
log.setAttribute('aria-relevant', 'additions');
onRecord(r => { const near = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  add(r); if (near) box.scrollTop = box.scrollHeight; });
// --- older records (W-74): the boot data holds the last ones; "Older records", or scrolling
// to the top of the log, fetches the ones before through GET …/log?before=&limit= (the same
// redaction as the stream) and draws them with logCard above, outside the live region
const older = $('log-older'), olderSaid = $('log-older-said'), OLDER_PAGE = 50;
let fetching = false, more = !!boot.older && (boot.log || []).length > 0;
older.hidden = !more;
function oldestShown() {
  const first = box.querySelector('article[data-revision]');
  return first ? Number(first.dataset.revision) : state.revision + 1;
}
async function readOlder() {
  const r = await fetch(api + '/log?before=' + oldestShown() + '&limit=' + OLDER_PAGE,
    {headers: auth}).catch(() => null);
  return r && r.ok ? r.json().catch(() => null) : null;
}
async function loadOlder() {
  if (fetching || !more) return;
  fetching = true; olderSaid.textContent = 'Loading older records…';
  const page = await readOlder();
  fetching = false;  // one page at a time: the next starts before the ones drawn now
  if (!page) { olderSaid.textContent = 'The older records could not be read; try again.';
    return; }
  const cards = page.records.map(logCard);
  const fromBottom = box.scrollHeight - box.scrollTop;
  $('log-older-cards').prepend(...cards);
  box.scrollTop = box.scrollHeight - fromBottom;  // the cards in view stay where they were
  // an undo or redo shown earlier may name a record just drawn: its last word stands
  const last = new Map();
  for (const c of box.querySelectorAll('article[data-kind="undo"], article[data-kind="redo"]'))
    last.set(c.dataset.seq, c.dataset.kind === 'undo');
  for (const [seq, undone] of last) strike(seq, undone);
  more = page.more; older.hidden = !more;
  olderSaid.textContent = page.records.length + ' older record' +
    (page.records.length === 1 ? '' : 's') + ' shown' + (more ? '.' : '; this is the start.');
}
older.addEventListener('click', loadOlder);
box.addEventListener('scroll', () => { if (box.scrollTop < 40) loadOlder(); });
})();
