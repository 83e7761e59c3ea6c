// The set-up pages' small script (a file of its own, W-73; nodes by textContent only):
// a chosen file is read into its form's JSON box (the form posts plain urlencoded text),
// "a new side" shows its text box, and a join link's Copy button copies it.
(() => {
  for (const picker of document.querySelectorAll('input[type=file][data-into]')) {
    picker.addEventListener('change', ev => {
      const file = ev.target.files[0];
      const box = document.getElementById(picker.dataset.into);
      if (!file || !box) return;
      file.text().then(t => { box.value = t; });
    });
  }
  for (const select of document.querySelectorAll('select[data-new-side]')) {
    const other = document.getElementById(select.dataset.newSide);
    if (!other) continue;
    const shown = () => {
      const isNew = select.value === '';
      other.hidden = !isNew;
      const input = other.querySelector('input');
      if (input) input.required = isNew;
    };
    select.addEventListener('change', shown);
    shown();
  }
  // Who is connected now (the Host's table page): read again every few seconds.
  const seats = document.querySelector('[data-presence]');
  const mark = (badge, on, off) => {
    if (!badge) return;
    badge.classList.toggle('online', on);
    badge.classList.toggle('offline', !on);
    const words = on ? 'connected' : off;
    if (badge.textContent !== words) badge.textContent = words;
  };
  const showPresence = found => {
    for (const seat of found.seats || []) {
      mark(document.querySelector(`[data-seat="${seat.id}"]`), seat.connected > 0,
        'not connected');
    }
    if (typeof found.host === 'number') {
      mark(document.getElementById('host-status'), found.host > 0, 'no fight page open');
    }
  };
  if (seats) {
    const look = () => fetch(seats.dataset.presence, {credentials: 'same-origin'})
      .then(r => (r.ok ? r.json() : {})).then(showPresence, () => {});
    setInterval(look, 3000);
  }
  const copied = (button, ok) => {
    const said = document.getElementById(button.dataset.said || '');
    if (said) said.textContent = ok ? 'Copied.' : 'Select the link and copy it.';
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      const box = document.getElementById(button.dataset.copy);
      if (!box) return;
      const text = box.value || box.textContent;
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(() => copied(button, true),
          () => copied(button, false));
        return;
      }
      box.focus();
      box.select();
      let ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      copied(button, ok);
    });
  }
})();
