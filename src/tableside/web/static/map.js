// The battle map, the page's stage (templates/encounter/map.html): the fight drawn in SVG, one
// unit an inch. A token per combatant (data-combatant) at its x, y: the side by colour AND
// shape, initials inside, a health ring (Wear E/R/P or HP) and condition marks, its name placed
// where no other label or token is (W-63), its elevation beside it; the defeated grey, the
// current Turn ringed; Spiritual Dominions and Barriers (War); the encounter's background image
// and the Host's fog (W-65, W-66); pings (W-67). The view zooms and pans (wheel, pinch, drag on
// the ground, buttons, keys) and is kept per encounter in localStorage (W-61). Tapping a token
// targets it (event tableside:target {id}); the acting combatant (event tableside:actor {id},
// else the viewer's one whose Turn it is) gets its reach rings; tapping the ground, dragging a
// token or the arrow keys plan a move whose cost the server decides on a copy (POST
// …/move-cost, W-20), confirmed by one tap (event tableside:move); the Host drags any token to
// place it (W-68). The ruler measures tap to tap (W-64). Moves streamed in slide along their
// path, Knock Back with its trail (not with reduced motion).
(() => {
const NS = 'http://www.w3.org/2000/svg';
const svg = $('map');
if (!svg) return;
const R = 0.45, SNAP = 0.5, PAD = 2;  // token radius, destination snap and margin (inches)
// the name's baseline: below the widest ring (the target's, R + 0.46) and its own ascent (W-38)
const NAME_Y = R + 0.46 + 0.42;
const SHAPES = ['circle', 'diamond', 'square', 'triangle'];
const COLOURS = ['#1f5fa8', '#a4262c', '#2e6b30', '#6a3d9a'];
const mayMove = id => boot.role === 'host' || (boot.characters || []).includes(id);
let actor = null, chosen = false, target = null, plan = null, rings = {}, ringsAt = -1;
const moving = {};  // id -> {from, to, start, ms}: tokens sliding along a streamed move
const trails = [];  // Knock Back trails shown for a while
let filled = '';  // the actor and position the move form was last filled with
// --- small helpers ------------------------------------------------------------------------
function node(tag, attrs, text) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}
const num = v => String(Math.round(v * 100) / 100);
const at = p => num(p[0]) + ', ' + num(p[1]) + (p[2] ? ', elevation ' + num(p[2]) : '');
const inches = v => num(v) + '″';
const rows = () => rowsOf(state);
const row = id => rows().find(r => r.id === id);
const sidesOf = () => WAR ? ['holy', 'fallen'] : [...new Set(rows().map(r => String(r.side)))];
function look(side) {
  const i = Math.max(0, sidesOf().indexOf(String(side))) % SHAPES.length;
  return {shape: SHAPES[i], colour: COLOURS[i]};
}
const defeated = r => WAR ? r.status === 'defeated' : (r.hp === 'down' ||
  (typeof r.hp === 'number' && r.hp <= 0));
function shapeNode(shape, x, y, r, attrs) {
  if (shape === 'circle') return node('circle', {cx: x, cy: y, r: r, ...attrs});
  const pts = shape === 'diamond' ? [[0, -1.2], [1.2, 0], [0, 1.2], [-1.2, 0]]
    : shape === 'square' ? [[-.9, -.9], [.9, -.9], [.9, .9], [-.9, .9]]
    : [[0, -1.15], [1.05, .75], [-1.05, .75]];
  return node('polygon', {points: pts.map(([a, b]) => (x + a * r) + ',' + (y + b * r)).join(' '),
    ...attrs});
}
const shown = r => moving[r.id] ? slide(moving[r.id], performance.now()) : r.position;
// --- the acting combatant -----------------------------------------------------------------
function defaultActor() {
  if (state.current && mayMove(state.current)) return state.current;
  const own = rows().find(r => mayMove(r.id) && boot.role !== 'host');
  return own ? own.id : (state.current || (rows()[0] || {}).id || null);
}
function follow() {
  if (!chosen || !row(actor)) actor = defaultActor();
  $('map-actor').textContent = actor || 'nobody yet';
  const r = row(actor), now = r ? actor + ' ' + r.position.join(',') : '';
  if (r && !plan && now !== filled) { filled = now; $('map-x').value = num(r.position[0]); $('map-y').value = num(r.position[1]);
    $('map-z').value = num(r.position[2]); }
}
// --- drawing ------------------------------------------------------------------------------
function bounds() {
  const xs = [], ys = [];
  for (const r of rows()) { xs.push(r.position[0]); ys.push(r.position[1]); }
  for (const d of [...(state.dominions || []), ...(state.barriers || [])]) {
    xs.push(d.center[0] - d.radius, d.center[0] + d.radius);
    ys.push(d.center[1] - d.radius, d.center[1] + d.radius); }
  if (plan) { xs.push(plan.to[0]); ys.push(plan.to[1]); }
  const a = row(actor), reach = Math.max(0, ...(rings[actor] || []).map(r => r.inches));
  if (a && reach < 24) { xs.push(a.position[0] - reach, a.position[0] + reach);
    ys.push(a.position[1] - reach, a.position[1] + reach); }
  if (!xs.length) { xs.push(0); ys.push(0); }
  let x0 = Math.floor(Math.min(...xs)) - PAD, x1 = Math.ceil(Math.max(...xs)) + PAD;
  let y0 = Math.floor(Math.min(...ys)) - PAD, y1 = Math.ceil(Math.max(...ys)) + PAD;
  if (x1 - x0 < 12) { const g = (12 - (x1 - x0)) / 2; x0 -= Math.floor(g); x1 += Math.ceil(g); }
  if (y1 - y0 < 8) { const g = (8 - (y1 - y0)) / 2; y0 -= Math.floor(g); y1 += Math.ceil(g); }
  return {x0, y0, x1, y1};
}
let box = null;
const FAR = 400;  // the ground reaches this far around the fight (inches): pan anywhere near it
function grid(b) {
  const g = node('g', {class: 'grid', 'aria-hidden': 'true'});
  const defs = node('defs'), minor = node('pattern', {id: 'map-grid', width: 1, height: 1,
    patternUnits: 'userSpaceOnUse'}), major = node('pattern', {id: 'map-grid5', width: 5,
    height: 5, patternUnits: 'userSpaceOnUse'});
  minor.append(node('path', {d: 'M1,0L0,0L0,1', class: 'minor'}));
  major.append(node('path', {d: 'M5,0L0,0L0,5', class: 'major'}));
  defs.append(minor, major);
  const area = {x: b.x0 - FAR, y: b.y0 - FAR, width: b.x1 - b.x0 + 2 * FAR,
    height: b.y1 - b.y0 + 2 * FAR};
  g.append(defs, node('rect', {...area, class: 'ground'}));
  if (background) g.append(backdrop());
  g.append(node('rect', {...area, fill: 'url(#map-grid)'}),
    node('rect', {...area, fill: 'url(#map-grid5)'}));
  for (let x = b.x0 + 1; x < b.x1; x++) if (x % 2 === 0)
    g.append(node('text', {x: x, y: b.y0 + 0.45, class: 'scale'}, String(x)));
  for (let y = b.y0 + 1; y < b.y1; y++) if (y % 2 === 0)
    g.append(node('text', {x: b.x0 + 0.15, y: y + 0.12, class: 'scale start'}, String(y)));
  return g;
}
function areas() {
  const g = node('g', {class: 'areas'});
  for (const d of state.dominions || []) {
    const a = node('g', {class: 'dominion', 'data-dominion': d.id, role: 'img',
      'aria-label': 'Spiritual Dominion ' + d.id + ' at ' + at(d.center) + ', radius ' +
        inches(d.radius) + ': Strikes cannot pass through it'});
    a.append(node('circle', {cx: d.center[0], cy: d.center[1], r: d.radius}),
      node('text', {x: d.center[0], y: d.center[1] - d.radius + 0.5}, 'Dominion ' + d.id));
    g.append(a);
  }
  for (const b of state.barriers || []) {
    const a = node('g', {class: 'barrier', 'data-barrier': b.id, role: 'img',
      'aria-label': 'Barrier ' + b.id + ' at ' + at(b.center) + ', radius ' + inches(b.radius)});
    a.append(node('circle', {cx: b.center[0], cy: b.center[1], r: b.radius}),
      node('text', {x: b.center[0], y: b.center[1] + 0.15}, 'Barrier ' + b.id));
    g.append(a);
  }
  return g;
}
// the rings under the tokens; their labels (words: true) over them, never hidden (W-63)
function reachRings(words) {
  const g = node('g', {class: words ? 'rings ring-labels' : 'rings', 'aria-hidden': 'true'});
  const r = row(actor);
  if (!r) return g;
  const [x, y] = shown(r);
  (rings[actor] || []).forEach((ring, i) => g.append(words
    ? node('text', {x: x, y: y - ring.inches - 0.12 - 0.4 * i, class: 'ring-label'},
      ring.label + ' ' + inches(ring.inches))
    : node('circle', {cx: x, cy: y, r: ring.inches, class: 'reach', 'data-ring': ring.label})));
  return g;
}
function describe(r) {
  const bits = [nameOf(r.id), String(r.side), 'at ' + at(r.position)];
  if (defeated(r)) bits.push('defeated');
  if (r.id === state.current) bits.push("current Turn");
  if (r.id === actor) bits.push('acting');
  if (r.id === target) bits.push('target');
  return bits.join(', ');
}
function token(r) {
  const {shape, colour} = look(r.side), [x, y, z] = shown(r);
  const g = node('g', {class: 'token' + (defeated(r) ? ' defeated' : '') +
    (r.id === state.current ? ' current' : '') + (r.id === actor ? ' acting' : '') +
    (r.id === target ? ' targeted' : ''), 'data-combatant': r.id, 'data-side': r.side,
    'data-shape': shape, role: 'button', tabindex: 0, 'aria-label': describe(r),
    transform: 'translate(' + x + ' ' + y + ')'});
  g.append(node('circle', {r: 0.75, class: 'hit'}));  // a bigger target for fingers
  if (r.id === state.current) g.append(node('circle', {r: R + 0.28, class: 'turn-ring'}));
  if (r.id === actor) g.append(node('circle', {r: R + 0.16, class: 'actor-ring'}));
  if (r.id === target) g.append(node('circle', {r: R + 0.4, class: 'target-ring'}));
  g.append(node('circle', {r: R + 0.5, class: 'focus-ring'}));
  g.append(shapeNode(shape, 0, 0, R, {class: 'body', fill: defeated(r) ? '#8a8a8a' : colour}));
  if (defeated(r)) g.append(node('path', {d: 'M-.35,-.35L.35,.35M.35,-.35L-.35,.35',
    class: 'cross'}));
  g.append(health(r), marks(r));
  return g;
}
// The health ring (W-63): War, three arcs (Endurance, Resolve, Passion), each as long as what
// Wear has left of it; Realm of Strife, one arc of the hit points left of hp_max (when secret,
// of the most seen). A
// value secret to the viewer draws no arc.
const HP_SEEN = {};
function arc(from, part, cls) {
  const r = R + 0.09, a0 = -Math.PI / 2 + from * 2 * Math.PI;
  const a1 = a0 + Math.max(0, Math.min(1, part)) * 2 * Math.PI - 1e-4;
  const p = a => (r * Math.cos(a)).toFixed(3) + ',' + (r * Math.sin(a)).toFixed(3);
  return node('path', {d: 'M' + p(a0) + 'A' + r + ',' + r + ' 0 ' + (a1 - a0 > Math.PI ? 1 : 0) +
    ' 1 ' + p(a1), class: 'hp ' + cls});
}
function health(r) {
  const g = node('g', {class: 'health', 'aria-hidden': 'true'});
  if (WAR) {
    const w = r.wear || {};
    [['E', 'endurance'], ['R', 'resolve'], ['P', 'passion']].forEach(([k, max], i) => {
      if (typeof w[k] !== 'number' || typeof r[max] !== 'number' || r[max] <= 0) return;
      g.append(arc(i / 3 + 0.01, (1 - w[k] / r[max]) / 3 - 0.02, 'wear-' + k));
    });
  } else if (typeof r.hp === 'number') {
    const most = typeof r.hp_max === 'number' && r.hp_max > 0 ? r.hp_max
      : HP_SEEN[r.id] = Math.max(HP_SEEN[r.id] || 0, r.hp);
    if (most > 0) g.append(arc(0, r.hp / most, r.hp / most > 0.5 ? 'high' : 'low'));
  }
  return g;
}
// Condition marks (W-63): a letter each, upper right of the token, in a small disc.
const MARKS = {stance: 'S', bound: 'B', grappled_by: 'G', exposed: 'X', asleep: 'Z',
  hidden: 'H', perched: 'P', flying: 'F'};
function markList(r) {
  const out = Object.keys(MARKS).filter(k => r[k] && r[k] !== 'secret').map(k => [MARKS[k], k]);
  for (const c of [...(r.conditions || []), ...(r.timed || [])].slice(0, 3)) {
    const name = String((c && (c.name || c.kind)) || c);
    out.push([name.charAt(0).toUpperCase(), name]);
  }
  return out.slice(0, 3);
}
function marks(r) {
  const g = node('g', {class: 'marks', 'aria-hidden': 'true'});
  markList(r).forEach(([letter, name], i) => {
    const a = -Math.PI / 4 + i * 0.75, x = (R + 0.05) * Math.cos(a), y = (R + 0.05) * Math.sin(a)
      - 0.12;
    const m = node('g', {class: 'mark', 'data-mark': name, transform: 'translate(' +
      x.toFixed(2) + ' ' + (y - 0.25).toFixed(2) + ')'});
    m.append(node('circle', {r: 0.17}), node('text', {y: 0.07}, letter));
    g.append(m);
  });
  return g;
}
// The token's words, drawn apart from it (its accessible name already says them): initials
// inside, the name where it crosses no other label and no token (W-63: below, above, right,
// left, then the corners; else shortened; else shown only on focus or hover), the elevation.
const initialsOf = name => { const w = name.split(/[\s_-]+/).filter(Boolean);
  return w.length > 1 ? (w[0][0] + w[w.length - 1].slice(0, 2)).slice(0, 3)
    : name.slice(0, 2); };
// a name's font (map.css: larger on a phone), its box's height and one character's width
const FONT = matchMedia('(max-width:600px)').matches ? 0.42 : 0.34;
const CHAR = FONT * 0.58;
const widthOf = text => text.length * CHAR + 0.1;
function spots(w) {
  const side = R + 0.5 + w / 2;
  return [[0, NAME_Y], [side, 0.14], [-side, 0.14], [side, NAME_Y - 0.2], [-side, NAME_Y - 0.2],
    [0, -(R + 0.5)], [side, -(R + 0.3)], [-side, -(R + 0.3)]];
}
const boxAt = (x, y, dx, dy, w) => ({x0: x + dx - w / 2, x1: x + dx + w / 2,
  y0: y + dy - FONT * 0.8, y1: y + dy + FONT * 0.2});
const crosses = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
function placeNames(list) {
  const taken = list.map(r => { const [x, y] = shown(r), e = R + 0.1;
    return {x0: x - e, x1: x + e, y0: y - e, y1: y + e, id: r.id}; });
  for (const r of list) { const [x, y, z] = shown(r);
    if (z) taken.push(boxAt(x, y, R + 0.1 + 0.35, 0.12, 0.75)); }
  const a = row(actor);  // the reach rings' labels are drawn where reachRings puts them
  if (a) (rings[actor] || []).forEach((ring, i) => { const [x, y] = shown(a);
    taken.push(boxAt(x, y, 0, -ring.inches - 0.12 - 0.4 * i,
      widthOf(ring.label + ' 00″') * 0.9)); });
  const placed = {};
  for (const r of [...list].sort((a, b) => shown(a)[1] - shown(b)[1] || shown(a)[0] -
    shown(b)[0])) {
    const [x, y] = shown(r), full = nameOf(r.id);
    const tries = [full, full.length > 7 ? full.slice(0, 6) + '…' : null].filter(Boolean);
    placed[r.id] = null;
    for (const text of tries) {
      const w = widthOf(text);
      const spot = spots(w).find(([dx, dy]) => { const b = boxAt(x, y, dx, dy, w);
        return !taken.some(t => crosses(b, t)); });
      if (spot) { const b = boxAt(x, y, spot[0], spot[1], w); taken.push(b);
        placed[r.id] = {text: text, dx: spot[0], dy: spot[1]}; break; }
    }
  }
  return placed;
}
let names = {};
function labelOf(r) {
  const [x, y, z] = shown(r), name = nameOf(r.id), spot = names[r.id];
  const g = node('g', {class: 'token-label' + (spot ? '' : ' tucked'), 'data-label-for': r.id,
    'aria-hidden': 'true', transform: 'translate(' + x + ' ' + y + ')'});
  g.append(node('text', {y: 0.12, class: 'initials'}, initialsOf(name)));
  const where = spot || {text: name, dx: 0, dy: NAME_Y};
  g.append(node('text', {x: where.dx, y: where.dy, class: 'name'}, where.text));
  // beside the token, level with it: clear of the names below the tokens above it (W-38)
  if (z) g.append(node('text', {x: R + 0.1, y: 0.12, class: 'elevation'},
    (z > 0 ? '↑' : '↓') + inches(Math.abs(z))));
  return g;
}
function planned() {
  const g = node('g', {class: 'plan', 'aria-hidden': 'true'});
  if (!plan) return g;
  const from = plan.from, to = plan.to, ok = plan.answer && plan.answer.allowed;
  g.append(node('line', {x1: from[0], y1: from[1], x2: to[0], y2: to[1],
    class: 'path' + (ok ? '' : ' refused')}));
  for (const ring of ok ? rings[plan.id] || [] : [])  // the reach from where it would stand
    g.append(node('circle', {cx: to[0], cy: to[1], r: ring.inches, class: 'reach-after',
      'data-ring': ring.label}));
  g.append(node('circle', {cx: to[0], cy: to[1], r: R, class: 'ghost' + (ok ? '' : ' refused')}));
  const label = !plan.answer ? '…' : ok ? costText(plan.answer) : 'not possible';
  // above the destination, drawn over the tokens: never under one (W-63)
  g.append(node('text', {x: to[0], y: to[1] - R - 0.62, class: 'cost'}, label));
  return g;
}
function draw() {
  const focused = document.activeElement && document.activeElement.getAttribute &&
    document.activeElement.getAttribute('data-combatant');
  box = bounds(); applyView();
  const tokens = node('g', {class: 'tokens'}), labels = node('g', {class: 'labels'});
  names = placeNames(rows());
  for (const r of rows()) { tokens.append(token(r)); labels.append(labelOf(r)); }
  svg.replaceChildren(grid(box), areas(), fogLayer(), reachRings(),
    node('g', {class: 'trails', 'aria-hidden': 'true'}), tokens, labels, reachRings(true), planned(), measured(),
    pingLayer());
  for (const t of trails) svg.querySelector('.trails').append(t);
  if (focused) { const t = svg.querySelector('[data-combatant="' + CSS.escape(focused) + '"]');
    if (t) t.focus(); }
  legend();
}
function legend() {
  const items = sidesOf().map(s => { const {shape, colour} = look(s);
    const li = el('li', ''), icon = node('svg', {viewBox: '-1 -1 2 2', width: 18, height: 18,
      'aria-hidden': 'true'});
    icon.append(shapeNode(shape, 0, 0, 0.7, {fill: colour}));
    li.append(icon, document.createTextNode(' ' + s + ' (' + shape + ')')); return li; });
  items.push(el('li', 'grey with a cross: defeated'), el('li', 'dashed gold ring: current Turn'),
    el('li', 'blue ring: acting'), el('li', 'red ring: target'),
    el('li', 'grid: 1 inch; ↑ elevation'));
  $('map-legend').replaceChildren(...items);
}
// --- targeting ----------------------------------------------------------------------------
function aim(id) {
  target = id; draw();
  document.dispatchEvent(new CustomEvent('tableside:target', {detail: {id: id}}));
}
document.addEventListener('tableside:target', ev => {
  if (ev.detail && ev.detail.id !== target) { target = ev.detail.id; draw(); } });
document.addEventListener('tableside:actor', ev => {
  if (!ev.detail || !row(ev.detail.id)) return;
  chosen = true; if (actor !== ev.detail.id) { actor = ev.detail.id; clearPlan(); }
  follow(); loadRings(); draw();
});
// --- planning a move: the server prices it (W-20) -----------------------------------------
const snap = v => Math.round(v / SNAP) * SNAP;
function costText(a) {
  return a.unit === 'AP' ? a.cost + ' AP' : inches(a.cost) + ' of Movement';
}
let asked = 0;
async function planMove(to) {
  const r = row(actor);
  if (!r) { say('Choose whom to move first.'); return; }
  if (!mayMove(actor)) { say(actor + ' is not yours to move.'); return; }
  plan = {id: actor, from: r.position, to: to, answer: null}; draw(); showPlan();
  const body = {id: actor, to: to};
  if ($('map-difficult') && $('map-difficult').checked) body.difficult = true;
  const mine = ++asked;
  const res = await fetch(api + '/move-cost', {method: 'POST', headers: auth,
    body: JSON.stringify(body)});
  const answer = await res.json();
  if (mine !== asked || !plan) return;
  if (!res.ok) { say(answer.error); clearPlan(); return; }
  plan.answer = answer; plan.from = answer.from; plan.args = body; draw(); showPlan();
}
function say(text) { $('map-status').textContent = text; }
function showPlan() {
  const a = plan && plan.answer;
  $('map-plan').hidden = !plan;
  if (!plan) return;
  const where = plan.id + ' to ' + at(plan.to);
  if (!a) { say('Pricing the move of ' + where + '…'); $('map-confirm').hidden = true; return; }
  const offers = (a.offers || []).map(o => o.attacker + ' (' + o.weapon + ')');
  say(a.allowed ? where + ': ' + inches(a.inches) + ', ' + costText(a) +
    (a.left !== null && a.left !== undefined ? ', ' + (a.unit === 'AP' ? a.left + ' AP' :
      inches(a.left) + ' of Movement') + ' left' : '') +
    (offers.length ? '. Leaving contact offers an Attack of Opportunity to ' +
      offers.join(', ') : '') + '.' : where + ' is not possible: ' + a.reason);
  $('map-confirm').hidden = !a.allowed;
  $('map-confirm').textContent = 'Move here (' + costText(a) + ')';
  if ($('map-place')) $('map-place').hidden = !a.place;
}
function clearPlan() { plan = null; asked++; showPlan(); draw(); }
// The move: the play panel sends it when it handles tableside:move (it calls preventDefault);
// otherwise the map sends it itself.
async function mapSend(args) { return post('/commands', {kind: 'move', args: args}); }
$('map-confirm').addEventListener('click', async () => {
  if (!plan || !plan.answer || !plan.answer.allowed) return;
  const args = plan.args, ev = new CustomEvent('tableside:move', {cancelable: true,
    detail: {id: args.id, to: args.to, args: args}});
  clearPlan();
  if (document.dispatchEvent(ev)) await mapSend(args);
});
if ($('map-place')) $('map-place').addEventListener('click', async () => {
  if (!plan) return;
  const args = {id: plan.id, field: 'position', value: plan.to};
  clearPlan(); await post('/commands', {kind: 'host_set', args: args});
});
$('map-cancel').addEventListener('click', () => { clearPlan(); say(''); });
$('map-form').addEventListener('submit', ev => {
  ev.preventDefault();
  const to = ['map-x', 'map-y', 'map-z'].map(id => Number($(id).value));
  if (!to.every(Number.isFinite)) { say('Type three numbers for x, y and z.'); return; }
  planMove(to);
});
if ($('map-difficult')) $('map-difficult').addEventListener('change', () => {
  if (plan) planMove(plan.to); });
// a tucked name (no room for it, W-63) shows while its token has focus or the pointer
function reveal(ev, on) {
  const t = ev.target.closest && ev.target.closest('.token[data-combatant]'); if (!t) return;
  const l = svg.querySelector('[data-label-for="' + CSS.escape(t.getAttribute('data-combatant')) +
    '"]'); if (l) l.classList.toggle('shown', on);
}
svg.addEventListener('focusin', ev => reveal(ev, true));
svg.addEventListener('focusout', ev => reveal(ev, false));
svg.addEventListener('pointerover', ev => reveal(ev, true));
svg.addEventListener('pointerout', ev => reveal(ev, false));
// --- the view: zoom and pan, kept per encounter (W-61) -------------------------------------
const VIEW_KEY = 'tableside:map-view:' + boot.encounter;
let view = null;  // {x, y, w, h} in inches; null: fit to the fight
try { const v = JSON.parse(localStorage.getItem(VIEW_KEY) || 'null');
  if (v && [v.x, v.y, v.w, v.h].every(Number.isFinite) && v.w > 0 && v.h > 0) view = v;
} catch (e) { view = null; }
const MIN_W = 3, MAX_W = 300;
function fitBox() { const b = box || bounds();
  return {x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0}; }
function applyView() {
  const v = view || fitBox();
  svg.setAttribute('viewBox', [v.x, v.y, v.w, v.h].map(n => Math.round(n * 1000) / 1000)
    .join(' '));
  svg.dataset.zoom = view ? 'kept' : 'fit';
}
function keepView() {
  applyView();
  try { if (view) localStorage.setItem(VIEW_KEY, JSON.stringify(view));
    else localStorage.removeItem(VIEW_KEY); } catch (e) { /* storage off: kept until reload */ }
}
// the inches one screen pixel spans, and the inch under a screen point
const perPixel = () => { const m = svg.getScreenCTM(); return m ? 1 / m.a : 0.05; };
function point(ev) {
  const m = svg.getScreenCTM(); if (!m) return null;
  const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
  return [p.x, p.y];
}
function zoomBy(f, about) {
  const v = view || fitBox(), w = Math.min(MAX_W, Math.max(MIN_W, v.w / f));
  const k = w / v.w, c = about || [v.x + v.w / 2, v.y + v.h / 2];
  view = {x: c[0] - (c[0] - v.x) * k, y: c[1] - (c[1] - v.y) * k, w: w, h: v.h * k};
  keepView();
}
function panBy(dx, dy) {
  const v = view || fitBox();
  view = {x: v.x + dx, y: v.y + dy, w: v.w, h: v.h}; keepView();
}
function fit() { view = null; keepView(); }
$('map-zoom-in').addEventListener('click', () => zoomBy(1.25));
$('map-zoom-out').addEventListener('click', () => zoomBy(0.8));
$('map-fit').addEventListener('click', fit);
svg.addEventListener('wheel', ev => {
  ev.preventDefault();
  zoomBy(Math.exp(-Math.max(-300, Math.min(300, ev.deltaY)) * 0.0015), point(ev));
}, {passive: false});
// --- the ruler (W-64): tap, tap; inches in a straight line, and from a token the viewer may
// move, the engine's price of its move there along the path it would take (W-20) -----------
let ruler = null;  // null: off; [] waiting for the first point; [a] or [a, b]
let rulerFrom = null, rulerPrice = null, rulerAsked = 0;  // the token measured from; its price
const rulerButton = $('map-ruler');
rulerButton.addEventListener('click', () => {
  ruler = ruler ? null : []; rulerFrom = null; rulerPrice = null; rulerAsked++;
  rulerButton.setAttribute('aria-pressed', String(!!ruler));
  say(ruler ? 'Ruler: tap where to measure from.' : ''); draw();
});
const gap = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], (a[2] || 0) - (b[2] || 0));
function measure(p, id) {
  ruler = ruler.length === 1 ? [ruler[0], p] : [p];
  rulerPrice = null; rulerAsked++;
  delete svg.dataset.rulerPath;
  if (ruler.length === 1) { rulerFrom = id || null; say('Ruler: tap where to measure to.'); }
  else { const d = gap(ruler[0], ruler[1]);
    svg.dataset.ruler = String(Math.round(d * 100) / 100);
    say(rulerWords(d, null));
    if (rulerFrom && mayMove(rulerFrom)) priceRuler(rulerFrom, ruler[1], d); }
  draw();
}
function rulerWords(d, a) {
  const from = rulerFrom ? nameOf(rulerFrom) : at(ruler[0]);
  const head = 'Ruler: ' + inches(d) + ' from ' + from + ' to ' + at(ruler[1]);
  if (!a) return head + '.';
  return head + (a.allowed ? '; its move there: ' + inches(a.inches) + ' along its path, ' +
    costText(a) + '.' : '; its move there is not possible: ' + a.reason);
}
// the engine prices the measured token's move as it would a drag (W-20); nothing is sent
async function priceRuler(id, to, d) {
  const r = row(id), mine = rulerAsked;
  if (!r) return;
  const res = await fetch(api + '/move-cost', {method: 'POST', headers: auth,
    body: JSON.stringify({id: id, to: [to[0], to[1], r.position[2]]})}).catch(() => null);
  if (!res || mine !== rulerAsked) return;
  const a = await res.json().catch(() => null);
  if (!res.ok || !a || mine !== rulerAsked) return;
  rulerPrice = a;
  if (a.allowed) svg.dataset.rulerPath = String(a.inches);
  say(rulerWords(d, a)); draw();
}
function measured() {
  const g = node('g', {class: 'ruler', 'aria-hidden': 'true'});
  if (!ruler || !ruler.length) return g;
  const [a, b] = [ruler[0], ruler[1] || ruler[0]];
  g.append(node('circle', {cx: a[0], cy: a[1], r: 0.12}));
  if (ruler.length !== 2) return g;
  g.append(node('line', {x1: a[0], y1: a[1], x2: b[0], y2: b[1]}),
    node('circle', {cx: b[0], cy: b[1], r: 0.12}));
  const priced = rulerPrice && rulerPrice.allowed && rulerPrice.path;
  if (priced) g.append(node('polyline', {class: 'priced',
    points: rulerPrice.path.map(q => q[0] + ',' + q[1]).join(' ')}));
  g.append(node('text', {x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 - 0.3},
    inches(gap(a, b)) + (priced ? ' · ' + inches(rulerPrice.inches) + ', ' +
      costText(rulerPrice) : '')));
  return g;
}
// --- pointers: tap a token (target), drag a token (plan its move; the Host: place it), tap the
// ground (plan a move), drag the ground (pan), two fingers (pinch and pan), hold still (ping)
const touching = new Map();  // pointerId -> [clientX, clientY]
let drag = null, pinch = null, holding = 0;
const HOLD_MS = 600;
function spread() {
  const [a, b] = [...touching.values()];
  return {d: Math.hypot(a[0] - b[0], a[1] - b[1]), mid: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]};
}
svg.addEventListener('pointerdown', ev => {
  touching.set(ev.pointerId, [ev.clientX, ev.clientY]);
  try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* a pointer already gone */ }
  clearTimeout(holding);
  if (touching.size === 2) { drag = null; pinch = spread(); return; }
  if (touching.size > 2) return;
  const t = ev.target.closest('[data-combatant]');
  drag = {id: t ? t.getAttribute('data-combatant') : null, x: ev.clientX, y: ev.clientY,
    moved: false, panned: false, pinched: false};
  const here = point(ev);
  holding = setTimeout(() => { if (drag && !drag.moved && here) { drag.pinged = true;
    sendPing(here); } }, HOLD_MS);
});
svg.addEventListener('pointermove', ev => {
  if (!touching.has(ev.pointerId)) return;
  const last = touching.get(ev.pointerId);
  touching.set(ev.pointerId, [ev.clientX, ev.clientY]);
  if (pinch && touching.size === 2) {
    const now = spread(), k = perPixel();
    panBy(-(now.mid[0] - pinch.mid[0]) * k, -(now.mid[1] - pinch.mid[1]) * k);
    const m = svg.getScreenCTM(), c = new DOMPoint(now.mid[0], now.mid[1])
      .matrixTransform(m.inverse());
    if (pinch.d > 0 && now.d > 0) zoomBy(now.d / pinch.d, [c.x, c.y]);
    pinch = now; return;
  }
  if (!drag) return;
  if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8) drag.moved = true;
  if (!drag.moved) return;
  clearTimeout(holding);
  if (drag.id && mayMove(drag.id) && !ruler) {  // drag a token: plan its move
    if (drag.id !== actor) { actor = drag.id; chosen = true; follow(); loadRings(); }
    const p = point(ev), r = row(drag.id); if (!p || !r) return;
    plan = {id: drag.id, from: r.position, to: [snap(p[0]), snap(p[1]), r.position[2]],
      answer: null};
    const g = svg.querySelector('.plan'); if (g) g.replaceWith(planned());
    return;
  }
  if (fogTool === 'fog-brush') {  // the Host's brush: 2-inch squares along the drag
    const p = point(ev); if (!p) return;
    drag.brush = drag.brush || [];
    const sq = {x: snap(p[0]) - 1, y: snap(p[1]) - 1, w: 2, h: 2};
    if (!drag.brush.some(b => b.x === sq.x && b.y === sq.y)) { drag.brush.push(sq);
      svg.querySelector('.fog').append(node('rect', {x: sq.x, y: sq.y, width: 2, height: 2,
        class: 'fogged host'})); }
    return;
  }
  drag.panned = true;  // drag the ground: pan
  const k = perPixel();
  panBy(-(ev.clientX - last[0]) * k, -(ev.clientY - last[1]) * k);
});
function lift(ev) {
  touching.delete(ev.pointerId);
  clearTimeout(holding);
  if (touching.size < 2) pinch = null;
  if (pinch === null && touching.size === 1) { drag = null; return; }  // a pinch's last finger
}
svg.addEventListener('pointerup', ev => {
  const wasPinch = !!pinch || touching.size > 1;
  lift(ev);
  const d = drag; drag = null;
  if (d && d.brush) { sendFog([...fog, ...d.brush]); return; }
  if (!d || wasPinch || d.pinged || d.panned) return;
  if (d.moved && plan && d.id) { planMove(plan.to); return; }
  const p = point(ev); if (!p) return;
  if (ruler) { const r = d.id && row(d.id);  // a token's place, else the half inch
    measure(r ? r.position : [snap(p[0]), snap(p[1]), 0], r && ruler.length !== 1 ? d.id : null);
    return; }
  if (fogTool && fogTap(p)) return;
  if (d.id) { aim(d.id); return; }
  const r = row(actor);
  if (r) planMove([snap(p[0]), snap(p[1]), r.position[2]]);
});
svg.addEventListener('pointercancel', ev => { lift(ev); drag = null; });
// --- keyboard: Enter or Space targets; arrow keys on the acting token plan a move; on the map,
// + and − zoom, 0 fits, Shift (or Ctrl) with the arrows pans -------------------------------
const ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
let nudge = null;
svg.addEventListener('keydown', ev => {
  const step = ARROWS[ev.key];
  if (step && (ev.shiftKey || ev.ctrlKey || ev.altKey)) {
    ev.preventDefault(); const v = view || fitBox();
    panBy(step[0] * v.w / 8, step[1] * v.h / 8); return; }
  if (ev.key === '+' || ev.key === '=') { ev.preventDefault(); zoomBy(1.25); return; }
  if (ev.key === '-' || ev.key === '−' || ev.key === '_') { ev.preventDefault(); zoomBy(0.8);
    return; }
  if (ev.key === '0') { ev.preventDefault(); fit(); return; }
  const t = ev.target.closest && ev.target.closest('[data-combatant]'); if (!t) return;
  const id = t.getAttribute('data-combatant');
  if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); aim(id); return; }
  if (!step || id !== actor || !mayMove(id)) return;
  ev.preventDefault();
  const from = plan ? plan.to : row(id).position;
  const to = [from[0] + step[0], from[1] + step[1], from[2]];
  plan = {id: id, from: row(id).position, to: to, answer: null}; draw(); showPlan();
  clearTimeout(nudge); nudge = setTimeout(() => planMove(to), 300);
});
// --- the background image (W-65), fog (W-66) and pings (W-67) -----------------------------
let background = null;  // {url, x, y, width, height} in inches
let fog = [];  // the Host's hidden areas: {x, y, w, h} rectangles (the brush lays small ones)
let fogTool = null, fogFrom = null;
const pings = [];
function backdrop() {
  const b = background;
  return node('image', {href: b.url, x: b.x, y: b.y, width: b.width, height: b.height,
    preserveAspectRatio: 'none', class: 'backdrop', 'data-background': b.version});
}
function fogLayer() {
  const g = node('g', {class: 'fog', 'aria-hidden': 'true'});
  for (const f of fog) g.append(node('rect', {x: f.x, y: f.y, width: f.w, height: f.h,
    class: boot.role === 'host' ? 'fogged host' : 'fogged'}));
  return g;
}
function pingLayer() {
  const g = node('g', {class: 'pings', 'aria-hidden': 'true'}), now = Date.now();
  for (const p of pings) if (now - p.at < 4000) {
    const m = node('g', {class: 'ping', 'data-ping': p.by, transform: 'translate(' + p.x + ' ' +
      p.y + ')'});
    m.append(node('circle', {r: 0.6}), node('circle', {r: 0.2, class: 'dot'}),
      node('text', {y: -0.8}, p.by));
    g.append(m);
  }
  return g;
}
async function sendPing(p) {
  const r = await reach(api + '/ping', {method: 'POST', headers: auth,
    body: JSON.stringify({x: Math.round(p[0] * 100) / 100, y: Math.round(p[1] * 100) / 100})});
  if (r && !r.ok) say((await jsonOf(r)).error); else say('Pinged ' + at(p) + '.');
}
function heard(ev) {
  let m; try { m = JSON.parse(ev.data); } catch (e) { return; }
  if (m.kind === 'ping') { pings.push({x: m.x, y: m.y, by: m.by, at: Date.now()});
    while (pings.length > 20) pings.shift();
    svg.querySelector('.pings').replaceWith(pingLayer());
    setTimeout(() => { const g = svg.querySelector('.pings'); if (g) g.replaceWith(pingLayer()); },
      4100); }
  if (m.kind === 'map') { loadMap(); refresh(); }  // the fog may hide or show combatants
}
if (typeof source !== 'undefined') source.addEventListener('map', heard);
async function loadMap() {
  const r = await fetch(api + '/map-layers', {headers: auth}).catch(() => null);
  if (!r || !r.ok) return;
  const m = await r.json();
  background = m.background ? {...m.background, url: api + '/background?v=' +
    m.background.version} : null;
  fog = m.fog || [];
  draw();
}
// the Host's fog tools: a rectangle (two taps), a brush (each tap and drag hides a 2" square),
// reveal (a tap erases the areas under it), reveal all
const FOG_TOOLS = ['fog-rect', 'fog-brush', 'fog-reveal'];
function fogTap(at) {
  const p = [snap(at[0]), snap(at[1])];  // corners on the half inch, as moves and the ruler
  if (fogTool === 'fog-rect') {
    if (!fogFrom) { fogFrom = p; say('Fog: tap the opposite corner.'); return true; }
    const f = {x: Math.min(fogFrom[0], p[0]), y: Math.min(fogFrom[1], p[1]),
      w: Math.abs(p[0] - fogFrom[0]), h: Math.abs(p[1] - fogFrom[1])};
    fogFrom = null; if (f.w > 0 && f.h > 0) sendFog([...fog, f]); return true;
  }
  if (fogTool === 'fog-brush') { sendFog([...fog, {x: p[0] - 1, y: p[1] - 1, w: 2, h: 2}]);
    return true; }
  if (fogTool === 'fog-reveal') { sendFog(fog.filter(f => !(p[0] >= f.x && p[0] <= f.x + f.w &&
    p[1] >= f.y && p[1] <= f.y + f.h))); return true; }
  return false;
}
async function sendFog(areas) {
  const r = await reach(api + '/fog', {method: 'PUT', headers: auth,
    body: JSON.stringify({areas: areas.map(f => ({x: +f.x.toFixed(2), y: +f.y.toFixed(2),
      w: +f.w.toFixed(2), h: +f.h.toFixed(2)}))})});
  if (r && !r.ok) { say((await jsonOf(r)).error); return; }
  fog = areas; draw(); refresh();
}
for (const id of FOG_TOOLS) if ($(id)) $(id).addEventListener('click', () => {
  fogTool = fogTool === id ? null : id; fogFrom = null;
  for (const o of FOG_TOOLS) $(o).setAttribute('aria-pressed', String(fogTool === o));
  say(fogTool ? 'Fog: tap the map.' : '');
});
if ($('fog-clear')) $('fog-clear').addEventListener('click', () => sendFog([]));
if ($('bg-form')) $('bg-form').addEventListener('submit', async ev => {
  ev.preventDefault();
  const file = $('bg-file').files[0];
  if (!file) { say('Choose an image file first.'); return; }
  const q = '?width=' + encodeURIComponent($('bg-width').value) + '&x=' +
    encodeURIComponent($('bg-x').value || 0) + '&y=' + encodeURIComponent($('bg-y').value || 0);
  const r = await reach(api + '/background' + q, {method: 'PUT', headers: {'X-CSRF-Token':
    boot.csrf, 'Content-Type': file.type || 'application/octet-stream'}, body: file});
  if (r && !r.ok) { say((await jsonOf(r)).error); return; }
  say('The background is set.'); loadMap();
});
if ($('bg-remove')) $('bg-remove').addEventListener('click', async () => {
  const r = await reach(api + '/background', {method: 'DELETE', headers: auth});
  if (r && !r.ok) { say((await jsonOf(r)).error); return; }
  say('The background is removed.'); loadMap();
});
// --- reach and range rings of the viewer's combatants (W-22) ------------------------------
async function loadRings() {
  if (ringsAt === state.revision) return;
  ringsAt = state.revision;
  const r = await fetch(api + '/map', {headers: auth});
  if (r.ok) { rings = (await r.json()).rings; draw(); }
}
// --- moves streamed in slide along their path; Knock Back leaves a trail ------------------
function slide(m, now) {
  const t = Math.min(1, (now - m.start) / m.ms), e = t * (2 - t);
  return m.from.map((v, i) => v + (m.to[i] - v) * e);
}
function animate(now) {
  let running = false;
  for (const [id, m] of Object.entries(moving)) {
    const p = slide(m, now), key = CSS.escape(id);
    for (const t of svg.querySelectorAll('.token[data-combatant="' + key +
      '"], [data-label-for="' + key + '"]'))
      t.setAttribute('transform', 'translate(' + p[0] + ' ' + p[1] + ')');
    if (now - m.start >= m.ms) delete moving[id]; else running = true;
  }
  if (running) requestAnimationFrame(animate); else draw();
}
const FORCED = {'M-35': 'Knock Back', 'S-19': 'Roll with the Blow'};
onRecord(r => {
  if (!['command', 'answer'].includes(r.kind) || !Array.isArray(r.events)) return;
  const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const collided = r.events.some(e => e.kind === 'wear_taken' && e.data &&
    /collision/.test(String(e.data.source || '')));
  for (const e of r.events) {
    const old = e.kind === 'moved' && e.data && row(e.data.id);
    if (!old || !Array.isArray(e.data.to)) continue;
    const from = old.position, to = e.data.to.map(Number);
    if (e.data.forced) {
      const trail = node('g', {class: 'trail', 'data-combatant': e.data.id});
      const what = FORCED[e.rule] || 'Forced move', crash = collided && e.rule === 'M-35';
      trail.append(node('line', {x1: from[0], y1: from[1], x2: to[0], y2: to[1]}),
        node('text', {x: to[0], y: to[1] - R - 0.5}, what + (crash ? ': collision' : '')));
      trails.push(trail);
      setTimeout(() => { trails.splice(trails.indexOf(trail), 1); trail.remove(); }, 4000);
      say(what + ': ' + e.data.id + ' to ' + at(to) + (crash ? ', with a collision.' : '.'));
    }
    if (reduced) continue;
    moving[e.data.id] = {from: from, to: to, start: performance.now(),
      ms: e.data.forced ? 900 : 600};
  }
  if (Object.keys(moving).length) requestAnimationFrame(animate);
});
onState(() => {
  follow(); loadRings();
  if (plan && plan.answer && plan.answer.revision !== state.revision) planMove(plan.to);
  draw();
});
loadMap();
window.mapPlanMove = planMove;  // for the keyboard form and tests: plan a move to [x, y, z]
})();
