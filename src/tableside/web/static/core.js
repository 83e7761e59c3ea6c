// The fight page's shared core: boot data, helpers, the state and its listeners, sending
// commands, and the live stream. The other scripts (log.js, cards.js, map.js, play.js,
// chat.js, decisions.js) follow it in one file (assets.py FIGHT_SCRIPTS, fight.<hash>.js):
// each keeps its private names inside an IIFE or prefixed, and shares only through the names below.
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
let state = boot.state;
const rowsOf = s => s.combatants || s.models || [];
// a combatant's name in this encounter (W-62): its id, underscores as spaces; a plain "Goblin"
// beside a "Goblin_2" is "Goblin 1", so that two of a kind are never the same name
function nameOf(id) {
  const s = String(id), ids = rowsOf(state).map(r => String(r.id));
  const numbered = ids.some(o => o.startsWith(s + '_') && /^\d+$/.test(o.slice(s.length + 1)));
  return s.replace(/_/g, ' ') + (numbered && !/_\d+$/.test(s) ? ' 1' : '');
}
// listeners: onState(fn) runs fn(state) on every new state; onRecord(fn) runs fn(record)
// for every record the stream delivers (after the state is refreshed)
const stateListeners = [], recordListeners = [];
const onState = fn => { stateListeners.push(fn); };
const onRecord = fn => { recordListeners.push(fn); };
function show(next) { state = next; for (const fn of stateListeners) fn(state); }
async function refresh() {
  const r = await fetch(api, {headers: auth}).catch(() => null);
  if (r && r.ok) show((await r.json()).state);
}
// --- sending ------------------------------------------------------------------------------
function report(text) { $('error').textContent = text; }
// the server unreachable: the action is said not to have been sent (W-41), never silent
const NOT_SENT = 'Not sent: the server cannot be reached. Check the connection and try again.';
async function reach(url, init) {
  try { return await fetch(url, init); } catch (e) { report(NOT_SENT); return null; }
}
// an answer's JSON (a proxy's page in its place: its status, in words)
const jsonOf = async r => r.json().catch(() => ({error: 'The server answered ' + r.status +
  ' without saying why; nothing was changed.'}));
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
  const r = await reach(api + path, {method: 'POST', headers: auth,
    body: JSON.stringify(body)});
  if (!r) return null;
  const answer = await jsonOf(r);
  if (r.status === 409 && /^The fight is waiting/.test(answer.error || '')) {
    report(answer.error); loadDecisions(); return null; }  // D-3: it waits for a decision
  if (r.status === 409) { await refresh(); report(movedOn(path, seen)); return null; }
  report(r.ok ? '' : answer.error);
  if (r.status === 202) waitsFor(answer);  // it waits for someone's decision (issue 11)
  return r.ok ? answer : null;
}
// --- live: every record as it is written (listeners run once every script is loaded) ------
const source = new EventSource(api + '/stream?after=' + boot.revision);
source.addEventListener('revoked', () => { source.close();
  report('This link was revoked by the Host: ask the Host for a new one.'); });
source.addEventListener('record', ev => {
  const r = JSON.parse(ev.data); for (const fn of recordListeners) fn(r);
  refresh(); loadOptions();
});
// a hidden command moved the table: its record is not for players, its effect is in the state
source.addEventListener('moved', () => { refresh(); loadOptions(); });
