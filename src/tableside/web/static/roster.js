// The roster pages' one way to send (sheet.js, carry.js load it first): a JSON request with the
// session's CSRF proof; a refusal, or a table out of reach, said in `said`. The answer, or null.
'use strict';
async function sendJson(url, method, body, csrf, said) {
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
