// The carry-over page (W-86): the Host's Apply sends the choices shown, then opens the roster.
'use strict';
(() => {
  const boot = JSON.parse(document.getElementById('boot').textContent);
  const button = document.getElementById('apply');
  const said = document.getElementById('said');
  if (!button) return;
  button.addEventListener('click', async () => {
    const answer = await sendJson('/api/encounters/' + boot.encounter + '/carry-over', 'POST',
      boot.options, boot.csrf, said, 'Applying…');
    if (answer === null) return;
    said.textContent = 'Applied to ' + answer.applied.length + ' character(s).';
    window.location.assign('/tables/' + boot.table + '/characters');
  });
})();
