// The fight at a glance: whose Turn, the War Scroll or turn order as a strip with the current
// Turn marked, one card per character (the viewer's own first), and the connection badge.
// A value concealed from this viewer (W-1) is the string "secret": shown as "unknown" (W-25).
let cardsWhose = null;
(() => {
const SECRET = 'secret';
const known = v => v !== SECRET && v !== undefined && v !== null;
const mine = new Set(boot.characters || []);
cardsWhose = s => {
  if (s.ended) return 'Ended — winner: ' + (s.winner || 'nobody');
  if (!s.current) return s.unseen_turn ? 'A Turn you cannot see' : 'Not started';
  const ambush = !WAR && s.round === 0 && s.ambush;
  return (WAR ? 'Cycle ' + s.cycle : ambush ? 'Ambush round (' + s.ambush + ')'
    : 'Round ' + s.round) + ': ' + nameOf(s.current) + "'s Turn";
};
function strip(s) {
  const order = $('order'); order.replaceChildren();
  let now = null;
  (s.order || []).forEach((t, i) => {
    const who = typeof t === 'string' ? t : t.combatant;
    const item = el('li', '', mine.has(who) ? 'mine' : '');
    if (typeof t !== 'string') item.append(el('span', t.segment, 'segment'));
    item.append(el('span', nameOf(who), 'name'));
    if (typeof t !== 'string' && known(t.ap)) item.append(el('span', t.ap + ' AP', 'ap'));
    const current = !s.ended && who === s.current && (typeof t === 'string' || i === s.turn);
    if (current) { item.classList.add('current'); item.setAttribute('aria-current', 'step');
      now = item; }
    order.append(item);
  });
  // the current Turn in view inside the strip, without scrolling the page
  if (now) order.scrollLeft = Math.max(0, now.offsetLeft - order.offsetLeft -
    order.clientWidth / 3);
}
// --- a character's card ----------------------------------------------------------------------
function field(card, name, raw, label, text, cls) {
  const row = el('div', '', 'field ' + (cls || name));
  row.dataset.field = name; row.dataset.value = known(raw) ? String(raw) : 'unknown';
  row.append(el('span', label, 'label'), el('span', known(raw) ? text : 'unknown', 'value'));
  card.append(row);
  return row;
}
function bar(card, name, label, current, max) {
  const row = field(card, name, current, label, String(current) + (known(max) ? ' / ' + max : ''),
    'bar-field');
  if (known(current) && known(max) && max > 0) {
    const track = el('span', '', 'bar'), fill = el('span', '', 'fill');
    const part = Math.max(0, Math.min(1, current / max));
    fill.style.width = (part * 100).toFixed(1) + '%';
    if (part <= 0.25) fill.classList.add('low');
    track.setAttribute('aria-hidden', 'true'); track.append(fill); row.append(track);
  }
}
function pips(card, name, label, n) {
  if (!known(n)) { field(card, name, n, label, ''); return; }
  if (!n) return;
  const row = field(card, name, n, label, String(n));
  const dots = el('span', '●'.repeat(Math.min(n, 12)), 'pips');
  dots.setAttribute('aria-hidden', 'true'); row.append(dots);
}
const untilText = t => t.ends ? 'until Cycle ' + t.ends.cycle + ', Turn ' + (t.ends.turn + 1)
  : 'until its next Turn';
const conditionText = c => c.name + (c.source ? ' (' + c.source + ')' : '') +
  (c.rounds_left !== null && c.rounds_left !== undefined ? ', ' + c.rounds_left + ' rounds left'
    : '') + (c.until ? ', until ' + c.until : '') + (c.stacks > 1 ? ', ' + c.stacks + ' stacks'
  : '');
function tags(card, items) {
  const shown = items.filter(Boolean);
  if (!shown.length) return;
  const ul = el('ul', '', 'tags');
  for (const t of shown) ul.append(el('li', t));
  card.append(ul);
}
function warCard(card, r) {
  const wear = r.wear && typeof r.wear === 'object' ? r.wear : {};
  for (const [name, kind, label] of [['endurance', 'E', 'Endurance'], ['resolve', 'R', 'Resolve'],
    ['passion', 'P', 'Passion']]) {
    const max = known(r[name]) && known(wear[kind]) ? r[name] + wear[kind] : null;
    bar(card, name, label + ' (' + kind + ')', r[name], max);
  }
  field(card, 'status', r.status, 'Status', words(r.status));
  if (!known(r.ap) || r.ap || r.readied) field(card, 'ap', r.ap, 'AP', String(r.ap) +
    (known(r.readied) && r.readied ? ' (' + r.readied + ' readied)' : ''));
  pips(card, 'falter', 'Falter', r.falter);
  if (!known(r.poison) || r.poison) field(card, 'poison', r.poison, 'Poison', String(r.poison));
  if (r.stance) field(card, 'stance', r.stance, 'Stance', r.full_stance ? 'Full Defensive'
    : 'Defensive');
  tags(card, [r.bound && 'Bound', r.grappled_by && 'Grappled by ' + r.grappled_by,
    r.exposed && 'Exposed', r.asleep && 'Asleep',
    ...(Array.isArray(r.surprised_by) ? r.surprised_by : []).map(x => 'Surprised by ' + x),
    ...(Array.isArray(r.timed) ? r.timed : []).map(t => t.name + (t.source ? ' (' + t.source +
      ')' : '') + ', ' + untilText(t))]);
}
function fightCard(card, r) {
  if (r.hp === 'down') field(card, 'hp', 'down', 'HP', 'down', 'bar-field');
  else bar(card, 'hp', 'HP', r.hp, r.hp_max);
  field(card, 'ac', r.ac, 'AC · Dodge', r.ac + ' · ' + (known(r.dodge) ? r.dodge : 'unknown'));
  if (known(r.movement)) field(card, 'movement', r.movement, 'Movement', r.movement + '″');
  if (Array.isArray(r.weapons) && r.weapons.length) field(card, 'weapons', r.weapons.join(', '),
    'Weapons', r.weapons.join(', '));
  if (Array.isArray(r.elements) && r.elements.length) field(card, 'elements',
    r.elements.join(', '), 'Used', r.elements.map(words).join(', '));
  tags(card, [r.hidden === true && 'Hidden', r.flying === true && 'Flying',
    r.perched === true && 'Perched',
    ...(Array.isArray(r.conditions) ? r.conditions : []).map(conditionText)]);
}
function card(r, s) {
  const li = el('li', '', 'char side-' + String(r.side).replace(/[^a-z0-9-]/gi, ''));
  li.dataset.combatant = r.id;
  if (Array.isArray(r.position)) li.dataset.position = JSON.stringify(r.position);
  const head = el('div', '', 'head');
  head.append(el('h3', nameOf(r.id)), el('span', r.side, 'side'));
  if (mine.has(r.id)) { li.classList.add('mine'); head.append(el('span', 'yours', 'tag')); }
  if (!s.ended && r.id === s.current) { li.classList.add('current');
    head.append(el('span', 'Turn now', 'tag now')); }
  li.append(head);
  const body = el('div', '', 'fields');
  if (WAR) warCard(body, r); else fightCard(body, r);
  li.append(body);
  if (r.status === 'defeated' || r.hp === 'down' || (known(r.hp) && r.hp <= 0))
    li.classList.add('out');
  return li;
}
function showCards(s) {
  $('revision').textContent = s.revision; $('whose').textContent = cardsWhose(s);
  strip(s);
  const rows = rowsOf(s);
  const sorted = [...rows.filter(r => mine.has(r.id)), ...rows.filter(r => !mine.has(r.id))];
  $('cards').replaceChildren(...sorted.map(r => card(r, s)));
}
onState(showCards);
document.addEventListener('tableside:seat', ev => {  // the Host edited the seat (W-36)
  mine.clear(); for (const c of ev.detail.characters) mine.add(c); showCards(state); });
// --- the connection badge: the live stream's state (core.js's EventSource) ------------------
const badge = $('connection');
let lost = null;
function connection(kind, text) {
  badge.className = 'badge ' + kind; badge.textContent = text;
}
source.addEventListener('open', () => {
  clearTimeout(lost); lost = null;
  const again = badge.classList.contains('reconnecting') || badge.classList.contains('offline');
  connection('live', 'Live');
  if (again) { refresh(); }
});
source.addEventListener('error', () => {
  if (source.readyState === EventSource.CLOSED) { connection('offline', 'Offline'); return; }
  if (!lost) { connection('reconnecting', 'Reconnecting…');
    lost = setTimeout(() => connection('offline', 'Offline: still trying'), 8000); }
});
source.addEventListener('revoked', () => connection('offline', 'Offline: link revoked'));
window.addEventListener('offline', () => connection('offline', 'Offline'));
})();
