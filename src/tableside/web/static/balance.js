// The set-up page's Balance panel (F-7): on load, ask the server who is likely to win as the
// roster stands (each add, remove or edit posts a form and reloads the page, so every change
// is recomputed); show each side's chance with its 95% interval as text and a bar. A first
// estimate (`provisional`, F-52, W-76: the fast engines still compiling or loading) is shown
// with its wide interval and asked again every few seconds until the fast engines answer.
(() => {
  const panel = document.getElementById('balance');
  if (!panel) return;
  const status = document.getElementById('balance-status');
  const list = document.getElementById('balance-sides');
  const REFINE_MS = 3000;  // a first estimate asked again (W-76)
  const percent = p => `${(100 * p).toFixed(1)} %`;
  const bar = (p, low, high) => {
    const box = document.createElement('span');
    box.className = 'balance-bar';
    box.setAttribute('aria-hidden', 'true');
    const fill = document.createElement('span');
    fill.className = 'balance-fill';
    fill.style.width = percent(p).replace(' ', '');
    const span = document.createElement('span');
    span.className = 'balance-ci';
    span.style.left = percent(low).replace(' ', '');
    span.style.width = percent(high - low).replace(' ', '');
    box.append(fill, span);
    return box;
  };
  const show = found => {
    list.replaceChildren();
    for (const side of found.sides) {
      const [low, high] = side.ci95;
      const row = document.createElement('li');
      row.dataset.side = side.side;
      const words = document.createElement('span');
      words.className = 'balance-words';
      words.textContent = `${side.side} wins ${percent(side.p)} (95 % interval `
        + `${percent(low)} – ${percent(high)})`;
      row.append(words, bar(side.p, low, high));
      list.append(row);
    }
    const extra = ['draws', 'unfinished'].filter(k => found[k].count)
      .map(k => ` ${k} ${percent(found[k].p)};`).join('');
    status.textContent = `${found.runs.toLocaleString('en')} runs in ${found.seconds.toFixed(2)} s`
      + ` (${found.engine} engine, policy ${found.policy}, seed ${found.seed}, revision`
      + ` ${found.revision});${extra}`.replace(/;$/, '.')
      + (found.provisional ? ` A first estimate on only ${found.runs} runs, hence the wide`
        + ` intervals: the fast engines are still being ${found.compiling ? 'compiled after an'
        + ' installation' : 'loaded'}; the balance is refined here when they are ready.`  // W-76
        : found.fallback ? ` Only ${found.runs} runs: the fast engine does not cover this`
        + ` encounter (${found.fallback}).`  // F-24
        : found.runs < found.asked ? ' Stopped once each side was known within ± 1.5 points'
        + ` (at most ${found.asked.toLocaleString('en')} runs).` : '');  // F-53
    panel.setAttribute('aria-busy', 'false');
    if (found.provisional) setTimeout(ask, REFINE_MS);
  };
  const refused = text => {
    list.replaceChildren();
    status.textContent = text;
    panel.setAttribute('aria-busy', 'false');
  };
  const ask = () => fetch(panel.dataset.balance, {credentials: 'same-origin'})
    .then(r => r.json().then(body => (r.ok ? show(body)
      : refused(body.error || `The balance failed (${r.status}).`))))
    .catch(() => refused('The balance could not be read (no connection?).'));
  status.textContent = 'Computing the balance…';
  panel.setAttribute('aria-busy', 'true');
  ask();
})();
