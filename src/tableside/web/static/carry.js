// The carry-over page (W-86): the Host's Apply sends the choices shown, then opens the roster.
'use strict';
(() => {
  const boot = JSON.parse(document.getElementById('boot').textContent);
  const button = document.getElementById('apply');
  const said = document.getElementById('said');
  if (!button) return;
  button.addEventListener('click', async () => {
    said.textContent = 'Applying…';
    let r = null;
    try {
      r = await fetch('/api/encounters/' + boot.encounter + '/carry-over', {
        method: 'POST', body: JSON.stringify(boot.options),
        headers: {'X-CSRF-Token': boot.csrf, 'Content-Type': 'application/json'}});
    } catch (e) {
      said.textContent = 'Not sent: the table cannot be reached.';
      return;
    }
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) {
      said.textContent = answer.error || ('Refused (' + r.status + ').');
      return;
    }
    said.textContent = 'Applied to ' + answer.applied.length + ' character(s).';
    window.location.assign('/tables/' + boot.table + '/characters');
  });
})();
