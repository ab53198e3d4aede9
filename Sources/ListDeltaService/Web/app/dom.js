// DOM helpers every part of the page uses: an element by id, a new element (data reaches the DOM through
// textContent and attributes only, never through innerHTML), and whether the user asked for reduced motion.

/** The element whose id is `id`. */
export const $ = (id) => document.getElementById(id);

/** True when the user prefers reduced motion: changes are then shown without animations. */
export const reduceMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * A new `tag` element with `attrs` (`class`, `text` for its text, `on<event>` for a listener, `style` an object of
 * CSS properties, custom `--properties` included, anything else as an attribute) and `children` appended. Styles go
 * through the CSSOM, never a `style` attribute, which the page's Content-Security-Policy refuses.
 */
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "style") for (const [property, value] of Object.entries(v)) node.style.setProperty(property, value);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};
