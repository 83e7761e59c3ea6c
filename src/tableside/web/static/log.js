// The log: every record as lines, as pages.py writes them on the server.
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
onRecord(r => { const log = $('log');
  for (const line of lines(r)) log.append(el('div', line, r.hidden ? 'hidden' : ''));
  log.scrollTop = log.scrollHeight; });
