// What the sheet and carry-over pages share (W-83 … W-86): send JSON with the page's CSRF token
// and say what happened in `said`. The answer when it is taken; null (said already) otherwise.
'use strict';
async function sendJson(url, method, body, csrf, said, sending = 'Sending…') {
  said.textContent = sending;
  let r = null;
  try {
    r = await fetch(url, {method: method, body: JSON.stringify(body),
      headers: {'X-CSRF-Token': csrf, 'Content-Type': 'application/json'}});
  } catch (e) {
    said.textContent = 'Not sent: the table cannot be reached.';
    return null;
  }
  const answer = await r.json().catch(() => ({}));
  if (!r.ok) {
    said.textContent = answer.error || ('Refused (' + r.status + ').');
    return null;
  }
  return answer;
}
