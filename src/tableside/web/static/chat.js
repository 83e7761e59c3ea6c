// The chat and dice roller (templates/encounter/chat.html; docs/web.md W-30 … W-33): messages
// and roll cards from GET …/chat and the stream's 'chat' events, sent with POST …/chat and
// POST …/rolls. Every node is built with textContent. Private names stay in this IIFE.
(() => {
  const list = $('chat-list'), fold = $('chat-fold'), live = $('chat-live');
  const shown = new Set();
  let unread = 0;
  // open on a wide screen; on a phone it stays folded below the play panel
  if (window.matchMedia('(min-width: 60rem)').matches) fold.open = true;
  fold.addEventListener('toggle', () => {
    if (fold.open) { unread = 0; $('chat-unread').textContent = ''; toNewest(); } });
  const toNewest = () => { list.scrollTop = list.scrollHeight; };
  const say = text => { $('chat-error').textContent = text; };

  // What each die counts as: its chip's class, a text cue and the words for it (M-6, M-8).
  const CUES = {
    hit: ['H', 'Hit'], miss: ['M', 'Miss'], stop: ['S', 'Stop'],
    twelve: ['H+', 'a 12: a Hit with one extra'], one: ['S!', 'a 1: a Stop that cancels a 12'],
    d100: ['', 'd100'], d20: ['', 'd20'], twenty: ['!', 'a natural 20'],
  };
  const CHECK_CUES = {hit: ['P', 'Pass'], miss: ['N', 'Neutral'], stop: ['F', 'Fail'],
    twelve: ['P+', 'a 12: a Pass with one extra'], one: ['F!', 'a 1: a Fail that cancels a 12']};
  const LEGEND = {
    d12: 'H Hit · M Miss · S Stop · H+ a 12 (one extra Hit) · S! a 1 · struck out: discarded ' +
      'by Boon or Bane',
    check: 'P Pass · N Neutral · F Fail · P+ a 12 (one extra Pass) · F! a 1 · struck out: ' +
      'discarded by Boon or Bane',
  };
  function chip(c, kind) {
    const cues = (kind === 'check' && CHECK_CUES[c.as]) || CUES[c.as] ||
      (c.as === 'one' ? ['!', 'a natural 1'] : ['', c.as]);
    const words = c.as === 'one' && kind === 'd20' ? 'a natural 1' : cues[1];
    const n = el('li', String(c.face), 'die ' + c.as + (c.discarded ? ' discarded' : ''));
    const cue = kind === 'd20' && c.as === 'one' ? '!' : cues[0];
    if (cue) n.append(el('span', cue, 'cue'));
    n.title = c.face + ': ' + words + (c.discarded ? ', discarded' : '');
    return n;
  }
  const move = a => 'die ' + a.die + ' ' + a.from + ' → ' + a.to + ' (' + a.side + ')';
  function card(roll) {
    const box = el('div', '', 'roll-card');
    const head = el('p', roll.summary, 'summary');
    if (roll.typed) head.append(el('span', 'typed dice', 'typed'));
    box.append(head);
    if (roll.label) box.append(el('p', 'For: ' + roll.label, 'more'));
    const dice = el('ul', '', 'dice');
    dice.setAttribute('aria-label', 'dice');
    for (const c of roll.chips || []) dice.append(chip(c, roll.kind));
    box.append(dice);
    if (LEGEND[roll.kind]) box.append(el('p', LEGEND[roll.kind], 'legend'));
    if (roll.suggested) box.append(el('p', 'Best Adjustments, suggested, not applied: ' +
      roll.suggested.adjustments.map(move).join(', ') + ' → ' + roll.suggested.net +
      ' net Passes, ' + roll.suggested.outcome + '.', 'more'));
    if (roll.seed !== null && roll.seed !== undefined)
      box.append(el('p', 'Server dice, seed ' + roll.seed, 'more'));
    return box;
  }
  const clock = at => new Date(at).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
  function whisperWords(m) {
    if (!m.whisper) return '';
    return m.host ? 'whisper to ' + (m.whisper.name || 'a seat') : 'whisper to the Host';
  }
  function render(m) {
    const row = el('div', '', 'msg' + (m.whisper ? ' whisper' : ''));
    row.dataset.id = m.id;
    const head = el('div', '');
    head.append(el('span', m.author + (m.host ? '' : ''), 'who'));
    const time = el('time', clock(m.at)); time.dateTime = m.at; head.append(time);
    if (m.whisper) head.append(el('span', whisperWords(m), 'whispered'));
    row.append(head);
    if (m.kind === 'roll' && m.roll) row.append(card(m.roll));
    else row.append(el('p', m.text, 'text'));
    return row;
  }
  function add(m, fresh) {
    if (shown.has(m.id)) return;
    shown.add(m.id);
    const row = render(m);
    const later = [...list.children].find(n => Number(n.dataset.id) > m.id);
    const bottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.insertBefore(row, later || null);
    if (!later || bottom) toNewest();
    if (!fresh) return;
    live.textContent = m.author + (m.whisper ? ' (' + whisperWords(m) + ')' : '') + ': ' + m.text;
    if (!fold.open) { unread += 1; $('chat-unread').textContent = unread + ' new'; }
  }
  async function load() {
    const r = await fetch(api + '/chat', {headers: auth});
    if (!r.ok) return;
    const answer = await r.json();
    const to = $('chat-to');
    if (answer.seats && to.options.length === 1)
      for (const s of answer.seats) {
        const o = el('option', 'Only ' + s.name + ' (whisper)'); o.value = String(s.id);
        to.append(o);
      }
    for (const m of answer.messages) add(m, false);
  }
  source.addEventListener('chat', ev => add(JSON.parse(ev.data), true));
  source.addEventListener('open', load);  // a stream that reconnects may have missed some
  const target = () => {
    const v = $('chat-to').value;
    return v === '' ? null : v === 'host' ? 'host' : Number(v);
  };
  async function send(path, body) {
    let r;
    try { r = await fetch(api + path, {method: 'POST', headers: auth, body: JSON.stringify(body)});
    } catch (e) { say('Not sent: the server cannot be reached. Your message is kept here.');
      return null; }
    let answer = {};
    try { answer = await r.json(); } catch (e) { answer = {error: 'The server did not answer.'}; }
    if (!r.ok) { say(answer.error || 'The message was not sent.'); return null; }
    say(''); add(answer, false);
    return answer;
  }
  $('chat-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const box = $('chat-text'), text = box.value.trim();
    if (!text) { say('Write a message first.'); return; }
    const body = {text: text}, to = target();
    if (to !== null) body.to = to;
    if (await send('/chat', body)) box.value = '';
  });
  // the roller: only the fields of the chosen kind are shown and sent
  const kind = $('dice-kind');
  function showFields() {
    for (const row of document.querySelectorAll('#dice-form [data-for]'))
      row.hidden = row.dataset.for !== kind.value;
  }
  kind.addEventListener('change', showFields); showFields();
  const number = id => { const v = $(id) ? $(id).value.trim() : ''; return v === '' ? null : Number(v); };
  const FIELDS = {d12: ['boon', 'bane'], check: ['boon', 'bane', 'factor', 'opposing', 'difficulty'],
    d20: ['stat', 'advantage'], d100: ['modifier', 'target']};
  $('dice-form').addEventListener('submit', ev => {
    ev.preventDefault();
    const body = {kind: kind.value};
    for (const name of FIELDS[kind.value]) {
      const v = number('dice-' + name);
      if (v !== null) body[name] = v;
    }
    if (kind.value === 'check') body.check = $('dice-check').value;
    if (kind.value === 'd100') body.against = $('dice-against').value;
    const label = $('dice-label').value.trim();
    if (label) body.label = label;
    const typed = $('dice-typed').value.trim();
    if (typed) body.dice = typed.split(/[\s,]+/).map(Number);
    const to = target();
    if (to !== null) body.to = to;
    send('/rolls', body);
  });
  load();
})();
