"use strict";
// The page's renderer: each part of the page is a function from data to a light tree of
// elements (h), and render(container, tree) patches the container's children to match the
// tree, in place. It is this project's own (no dependency, no build step), small on purpose.
//
//   h(tag, props, ...children)  an element: `props` holds its attributes ("id", "class",
//       "aria-label", "for", "data-x": true sets an empty attribute; false, null and
//       undefined leave it out), "key" (never shown: what identifies it among its siblings;
//       an element with an "id" is keyed by its id), "on<event>" listeners (onclick,
//       onsubmit, onkeydown ...), "value" and "checked" (properties: set when the element is
//       made and whenever the tree's value changes, never otherwise, so what a player typed
//       or ticked stays), "style" (an object of CSS properties, set through the CSSOM, which
//       the page's Content-Security-Policy allows). Children are elements, strings or
//       numbers (text), arrays of them (flattened), and null, undefined, true or false
//       (left out). `class` may be a string or an array (its false values left out).
//   render(container, tree)  makes the container's children what the tree (an element, a
//       string, an array, or null for nothing) says. The renderer owns the container's
//       children: anything else in it is removed.
//
// How a patch goes: a child of the tree takes the place of the old child with the same key
// and tag (a keyed child), else of the next old unkeyed child with the same tag (or the next
// old text, for text); only the attributes, listeners and texts that changed are written, and
// a kept child is moved, never made anew. Old children the tree no longer has are removed,
// new ones made. A node the tree keeps is never replaced, so whatever it holds -- the focus,
// the text being typed, a choice made, an open confirmation, an answer shown under its
// control, the browser's scroll anchor -- is still there after the patch. A moved child that
// holds the focus stays where it is and its siblings move around it instead (moving a
// focused element would take the focus from it).
(function () {
  const PROPERTIES = new Set(["value", "checked"]);

  function flat(children, out) {
    for (const c of children) {
      if (c === null || c === undefined || c === false || c === true) continue;
      if (Array.isArray(c)) flat(c, out);
      else if (typeof c === "object") out.push(c);
      else out.push({ tag: null, text: String(c) });
    }
    return out;
  }

  function h(tag, props, ...children) {
    const p = {};
    for (const [name, value] of Object.entries(props || {})) {
      if (name === "class" && Array.isArray(value)) p[name] = value.filter(Boolean).join(" ") || null;
      else p[name] = value;
    }
    const key = p.key !== undefined && p.key !== null ? String(p.key)
      : p.id !== undefined && p.id !== null ? "#" + p.id : null;
    delete p.key;
    return { tag: String(tag).toLowerCase(), props: p, key, children: flat(children, []) };
  }

  // One listener per event type and element: it calls the element's current handler, so a
  // patch changes a handler without adding or removing listeners.
  function dispatch(ev) {
    const handler = this.__on && this.__on[ev.type];
    if (handler) handler.call(this, ev);
  }

  function setProp(node, name, value, old) {
    if (name.startsWith("on")) {
      const type = name.slice(2).toLowerCase();
      node.__on = node.__on || {};
      if (!node.__on[type] && value) node.addEventListener(type, dispatch);
      node.__on[type] = value || null;
    } else if (name === "style") {
      const was = old || {}, now = value || {};
      Object.keys(was).forEach((k) => { if (!(k in now)) node.style.removeProperty(k); });
      Object.entries(now).forEach(([k, v]) => {
        if (was[k] !== v) node.style.setProperty(k, String(v));
      });
    } else if (PROPERTIES.has(name)) {
      node[name] = name === "checked" ? Boolean(value) : value === undefined || value === null
        ? "" : String(value);
    } else if (value === false || value === null || value === undefined) {
      node.removeAttribute(name);
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }

  function sameStyle(a, b) {
    return JSON.stringify(a || {}) === JSON.stringify(b || {});
  }

  function create(v) {
    if (v.tag === null) {
      const t = document.createTextNode(v.text);
      t.__v = v;
      return t;
    }
    const node = document.createElement(v.tag);
    patchChildren(node, v.children);  // first: a select's value needs its options
    for (const [name, value] of Object.entries(v.props)) setProp(node, name, value, undefined);
    node.__v = v;
    return node;
  }

  function update(node, v) {
    const old = node.__v;
    if (v.tag === null) {
      if (node.data !== v.text) node.data = v.text;
    } else {
      patchChildren(node, v.children);
      for (const name of Object.keys(old.props)) {
        if (!(name in v.props)) setProp(node, name, undefined, old.props[name]);
      }
      for (const [name, value] of Object.entries(v.props)) {
        const was = old.props[name];
        if (name === "style" ? !sameStyle(was, value) : was !== value) {
          setProp(node, name, value, was);
        }
      }
    }
    node.__v = v;
    return node;
  }

  function patchChildren(parent, kids) {
    const keyed = new Map(), loose = [];
    for (const n of Array.from(parent.childNodes)) {
      if (!n.__v) n.remove();  // not the renderer's
      else if (n.__v.key === null || n.__v.key === undefined) loose.push(n);
      else if (keyed.has(n.__v.key)) n.remove();  // a key given twice: the first keeps it
      else keyed.set(n.__v.key, n);
    }
    let from = 0;
    const nodes = kids.map((v) => {
      let n = null;
      if (v.key !== null && v.key !== undefined) {
        n = keyed.get(v.key) || null;
        if (n && n.__v.tag === v.tag) keyed.delete(v.key);
        else n = null;
      } else {
        for (let i = from; i < loose.length; i++) {
          if (loose[i] && loose[i].__v.tag === v.tag) {
            n = loose[i];
            loose[i] = null;
            if (i === from) from++;
            break;
          }
        }
      }
      return n ? update(n, v) : create(v);
    });
    keyed.forEach((n) => n.remove());
    loose.forEach((n) => n && n.remove());
    const focused = document.activeElement;
    let cursor = parent.firstChild;
    for (const n of nodes) {
      if (n === cursor) {
        cursor = n.nextSibling;
      } else if (n.parentNode === parent && focused && n.contains(focused)) {
        const after = n.nextSibling;  // the focused child stays: the ones before it move
        while (cursor !== n) {
          const next = cursor.nextSibling;
          parent.insertBefore(cursor, after);
          cursor = next;
        }
        cursor = n.nextSibling;
      } else {
        parent.insertBefore(n, cursor);
      }
    }
  }

  function render(container, tree) {
    patchChildren(container, flat([tree], []));
  }

  window.NomicRender = Object.freeze({ h, render });
})();
