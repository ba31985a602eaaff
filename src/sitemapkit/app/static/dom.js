/* The one way the app puts things in the page: elements built with createElement and
 * text set with textContent. Crawled titles and URLs come from the web; nothing here
 * ever parses a string as HTML (no innerHTML, no insertAdjacentHTML), so a title
 * "<script>...</script>" is shown as those characters. */

/**
 * el('a', {href: u, className: 'x', onclick: f}, 'text', child) -> HTMLAnchorElement.
 * Props: className, text, dataset-like "data-*" / "aria-*" / other strings as attributes,
 * functions named on* as listeners, booleans as properties (hidden, disabled, checked).
 */
export function el(tag, props, ...kids) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) { continue; }
      if (key === 'className') { node.className = value; }
      else if (key === 'text') { node.textContent = String(value); }
      else if (typeof value === 'function' && key.startsWith('on')) { node.addEventListener(key.slice(2), value); }
      else if (value === true) { node[key] = true; node.setAttribute(key, ''); }
      else { node.setAttribute(key, String(value)); }
    }
  }
  append(node, kids);
  return node;
}

export function append(node, kids) {
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) { continue; }
    node.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) { node.removeChild(node.firstChild); }
  return node;
}

export function fmt(n) {
  return n === null || n === undefined ? '\u2013' : Number(n).toLocaleString('en-US');
}

export function bytes(n) {
  if (n === null || n === undefined) { return '\u2013'; }
  if (n < 1024) { return n + ' B'; }
  if (n < 1024 * 1024) { return (n / 1024).toFixed(1) + ' KB'; }
  return (n / 1024 / 1024).toFixed(1) + ' MB';
}

export function when(seconds) {
  if (!seconds) { return '\u2013'; }
  const d = new Date(seconds * 1000);
  return d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export function duration(seconds) {
  if (seconds === null || seconds === undefined) { return '\u2013'; }
  const s = Math.round(seconds);
  return s < 60 ? s + ' s' : Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
}

/** A definition list from [label, value] pairs (value: text or node). */
export function facts(pairs) {
  const dl = el('dl', { className: 'facts' });
  for (const [k, v] of pairs) { append(dl, [el('dt', { text: k }), el('dd', null, v)]); }
  return dl;
}
