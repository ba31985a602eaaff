/* The app's one HTTP seam: JSON in, JSON out, errors as one line (API.md). The token,
 * when the server has one, travels in the cookie a ?token= visit set. */

export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try { resp = await fetch(path, init); }
  catch (e) { throw new ApiError(0, 'the sitemapkit server does not answer (is `sitemapkit serve` still running?)'); }
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!resp.ok) {
    const msg = data && data.error ? data.error : (resp.status + ' ' + resp.statusText);
    throw new ApiError(resp.status, msg);
  }
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body || {});
export const sitePath = (id, tail) => '/api/sites/' + encodeURIComponent(id) + (tail || '');
