// The battle map (templates/encounter/map.html): the fight drawn in SVG, one unit an inch.
// A token per combatant (data-combatant) at its x, y with its elevation z as a label, the
// side by colour AND shape, the defeated grey, the current Turn ringed; Spiritual Dominions
// and Barriers (War). Tapping a token targets it (event tableside:target {id}); the acting
// combatant (event tableside:actor {id}, else the viewer's one whose Turn it is) gets its reach
// rings; tapping the ground, dragging it or the arrow keys plan a move whose cost the server
// decides on a copy (POST …/move-cost, W-20), confirmed by a button (event tableside:move).
// Moves streamed in slide along their path, Knock Back with its trail (not with reduced motion).
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
function grid(b) {
  const g = node('g', {class: 'grid', 'aria-hidden': 'true'});
  g.append(node('rect', {x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0,
    class: 'ground'}));
  for (let x = b.x0; x <= b.x1; x++) g.append(node('line', {x1: x, y1: b.y0, x2: x, y2: b.y1,
    class: x % 5 === 0 ? 'major' : 'minor'}));
  for (let y = b.y0; y <= b.y1; y++) g.append(node('line', {x1: b.x0, y1: y, x2: b.x1, y2: y,
    class: y % 5 === 0 ? 'major' : 'minor'}));
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
function reachRings() {
  const g = node('g', {class: 'rings', 'aria-hidden': 'true'}), r = row(actor);
  if (!r) return g;
  const [x, y] = shown(r);
  (rings[actor] || []).forEach((ring, i) => {
    g.append(node('circle', {cx: x, cy: y, r: ring.inches, class: 'reach',
      'data-ring': ring.label}));
    g.append(node('text', {x: x, y: y - ring.inches - 0.12 - 0.4 * i, class: 'ring-label'},
      ring.label + ' ' + inches(ring.inches)));
  });
  return g;
}
function describe(r) {
  const bits = [r.id, String(r.side), 'at ' + at(r.position)];
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
  return g;
}
// The token's words, drawn apart from it (its accessible name already says them): initials,
// name and elevation.
function labelOf(r) {
  const [x, y, z] = shown(r);
  const g = node('g', {class: 'token-label', 'data-label-for': r.id, 'aria-hidden': 'true',
    transform: 'translate(' + x + ' ' + y + ')'});
  g.append(node('text', {y: 0.14, class: 'initials'}, r.id.slice(0, 2)),
    node('text', {y: NAME_Y, class: 'name'}, r.id));
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
  g.append(node('text', {x: (from[0] + to[0]) / 2, y: (from[1] + to[1]) / 2 - 0.25,
    class: 'cost'}, label));
  return g;
}
function draw() {
  const focused = document.activeElement && document.activeElement.getAttribute &&
    document.activeElement.getAttribute('data-combatant');
  box = bounds();
  svg.setAttribute('viewBox', [box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0].join(' '));
  const tokens = node('g', {class: 'tokens'}), labels = node('g', {class: 'labels'});
  for (const r of rows()) { tokens.append(token(r)); labels.append(labelOf(r)); }
  svg.replaceChildren(grid(box), areas(), reachRings(), planned(),
    node('g', {class: 'trails', 'aria-hidden': 'true'}), tokens, labels);
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
// --- pointer: tap a token (target), tap the ground or drag the actor (plan a move) --------
function point(ev) {
  const m = svg.getScreenCTM(); if (!m) return null;
  const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
  return [p.x, p.y];
}
let drag = null;
svg.addEventListener('pointerdown', ev => {
  const t = ev.target.closest('[data-combatant]');
  drag = {id: t ? t.getAttribute('data-combatant') : null, x: ev.clientX, y: ev.clientY,
    moved: false};
  if (t && drag.id === actor && mayMove(actor)) svg.setPointerCapture(ev.pointerId);
});
svg.addEventListener('pointermove', ev => {
  if (!drag || drag.id !== actor || !mayMove(actor)) return;
  if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8) drag.moved = true;
  if (!drag.moved) return;
  const p = point(ev), r = row(actor); if (!p || !r) return;
  plan = {id: actor, from: r.position, to: [snap(p[0]), snap(p[1]), r.position[2]],
    answer: null};
  const g = svg.querySelector('.plan'); if (g) g.replaceWith(planned());
});
svg.addEventListener('pointerup', ev => {
  const d = drag; drag = null;
  if (!d) return;
  if (d.moved && plan) { planMove(plan.to); return; }
  if (d.id) { aim(d.id); return; }
  const p = point(ev), r = row(actor);
  if (p && r) planMove([snap(p[0]), snap(p[1]), r.position[2]]);
});
svg.addEventListener('pointercancel', () => { drag = null; });
// --- keyboard: Enter or Space targets; arrow keys on the acting token plan a move ----------
const ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
let nudge = null;
svg.addEventListener('keydown', ev => {
  const t = ev.target.closest && ev.target.closest('[data-combatant]'); if (!t) return;
  const id = t.getAttribute('data-combatant');
  if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); aim(id); return; }
  const step = ARROWS[ev.key];
  if (!step || id !== actor || !mayMove(id)) return;
  ev.preventDefault();
  const from = plan ? plan.to : row(id).position;
  const to = [from[0] + step[0], from[1] + step[1], from[2]];
  plan = {id: id, from: row(id).position, to: to, answer: null}; draw(); showPlan();
  clearTimeout(nudge); nudge = setTimeout(() => planMove(to), 300);
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
window.mapPlanMove = planMove;  // for the keyboard form and tests: plan a move to [x, y, z]
})();
