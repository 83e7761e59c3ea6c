// The sheet page (W-83 … W-85): send the form's change, or the Host's answer to a waiting one.
'use strict';
(() => {
  const boot = JSON.parse(document.getElementById('boot').textContent);
  const api = '/api/characters/' + boot.character;
  const said = document.getElementById('said');

  async function send(body, done, method = 'PATCH', url = api) {
    const answer = await sendJson(url, method, body, boot.csrf, said);
    if (answer === null) return;
    said.textContent = done(answer);
    setTimeout(() => window.location.reload(), 600);
  }

  function edited() {
    const sheet = JSON.parse(JSON.stringify(boot.sheet));
    for (const input of document.querySelectorAll('#edit-form input[data-path]')) {
      const path = input.dataset.path.split('.');
      let at = sheet;
      for (const key of path.slice(0, -1)) at = at[key];
      at[path[path.length - 1]] = input.dataset.kind === 'number' ? Number(input.value)
        : input.value;
    }
    return sheet;
  }

  document.getElementById('edit-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({sheet: edited()}, (a) => a.pending ? 'Sent: it waits for the Host\'s approval.'
      : 'Saved.');
  });
  const rest = document.getElementById('rest');
  if (rest) rest.addEventListener('click', () => send({}, () => 'Rested.', 'POST', api + '/rest'));
  for (const [id, approve] of [['approve', true], ['refuse', false]]) {
    const button = document.getElementById(id);
    if (button) button.addEventListener('click', () => send({approve: approve},
      () => approve ? 'Approved.' : 'Refused.'));
  }
})();
