// The fight at a glance: whose Turn, the turn order or War Scroll, the combatants.
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
function distanceFrom(row) {
  const me = rowsOf(state).find(r => r.id === $('p-actor').value);
  if (!me || me.id === row.id) return '';
  return Math.hypot(...row.position.map((x, i) => x - me.position[i])).toFixed(2);
}
function showCards(state) {
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
onState(showCards);
