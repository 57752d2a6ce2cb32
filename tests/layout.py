"""The page's layout measured inside Chromium: what a player would see cut off, sticking out or
covered. Shared by the layout test (tests/test_serve_layout.py) and anyone looking at a screen.

A problem is a dict with `kind`, the element (`what`: #id or tag.class) and the figures, in CSS
pixels. The kinds:
- `page-wider`: the page scrolls sideways (something is wider than the window);
- `outside`: a visible element reaches past the window's left or right edge (and no box between
  scrolls it back into reach);
- `overflow`: an element's content is wider than its box and sticks out or is cut off (a label too
  long for its button); text meant to scroll sideways (a `.code` block) is left out;
- `scrolls`: a box scrolls sideways though nothing in it should need to (the card, the log table);
- `broken-word`: a word cut in two at a line's end (a title squeezed by its neighbours) where the page
  did not allow it (`hyphens: auto` marks the boxes that may, like the card's events on a phone);
- `clipped-text`: a select's chosen option, or an input's placeholder, is wider than the box shows;
- `tick`: a check box or radio button not drawn square and at least 20 px;
- `overlap`: two controls (buttons, links, fields, check boxes) drawn over each other;
- `covered`: a control, or the header, under a notice (a toast, the undo bar), or Pause and End under
  anything at all (a tap's overlay, quiet mode's flash);
- `below`: a control or the announcement under the mission's Pause and End (they are the frame's
  foot: nothing of the stage may be drawn behind them).
"""

from __future__ import annotations

MIN_TICK_PX = 20

_PROBLEMS = r"""
const minTick = arguments[0];
const problems = [];
const root = document.documentElement;
const width = root.clientWidth, height = innerHeight;
const shown = (e) => e.getClientRects().length > 0 && !e.closest('[hidden]') && getComputedStyle(e).visibility !== 'hidden'
  && !e.closest('.sr-only, [aria-hidden=true]');
const named = (e) => e.id ? '#' + e.id
  : e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '')
    + (e.name ? `[name=${e.name}]` : '');
const where = (e) => { const parts = []; for (let n = e; n && n !== document.body && parts.length < 3; n = n.parentElement) parts.unshift(named(n)); return parts.join(' > '); };
const text = (e) => (e.innerText || e.value || e.placeholder || '').trim().replace(/\s+/g, ' ').slice(0, 60);
const round = (v) => Math.round(v);
const scrollsX = (e) => /(auto|scroll)/.test(getComputedStyle(e).overflowX);
const scroller = (e) => { for (let n = e.parentElement; n && n !== document.body; n = n.parentElement) if (scrollsX(n)) return n; return null; };
// text meant to scroll (code), drawn for screen readers only (clipped to a pixel), and the mission's
// caption, which keeps its newest words in view when an announcement is longer than its box
const hiddenClip = (e) => { for (let n = e; n && n !== document.body; n = n.parentElement) {
  const style = getComputedStyle(n); if (style.clip !== 'auto' || style.clipPath !== 'none') return true; } return false; };
const exempt = (e) => e.closest('pre, code, .code, .sr-only, #awake, svg, .now') || hiddenClip(e);

if (root.scrollWidth > width + 1) problems.push({kind: 'page-wider', what: 'html', width: root.scrollWidth, window: width});
const all = [...document.body.querySelectorAll('*')].filter(shown);
for (const e of all) {
  if (exempt(e)) continue;
  const style = getComputedStyle(e);
  const box = e.getBoundingClientRect();
  const fixed = style.position === 'fixed';
  if (box.width > 0 && (box.right > width + 1 || box.left < -1) && !scroller(e) && style.position !== 'absolute') {
    problems.push({kind: 'outside', what: where(e), text: text(e), left: round(box.left), right: round(box.right), window: width});
  }
  if (style.display === 'inline' || e instanceof SVGElement || ['SELECT', 'OPTION', 'PROGRESS', 'IMG', 'VIDEO', 'AUDIO', 'BR', 'HTML'].includes(e.tagName)) continue;
  if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) {
    if (scrollsX(e)) {
      problems.push({kind: 'scrolls', what: where(e), content: e.scrollWidth, box: e.clientWidth});
    } else if (e.tagName !== 'INPUT') {  // a text field scrolls what is typed in it; its placeholder is measured below
      problems.push({kind: 'overflow', what: where(e), text: text(e), content: e.scrollWidth, box: e.clientWidth});
    }
  }
  if (e.scrollHeight > e.clientHeight + 1 && /(hidden|clip)/.test(style.overflowY) && e.clientHeight > 0 && !fixed) {
    problems.push({kind: 'overflow', what: where(e), text: text(e), content_height: e.scrollHeight, box_height: e.clientHeight});
  }
}

// a word cut in two at the end of a line, where the page did not let the browser hyphenate
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const parent = node.parentElement;
  if (!parent || !shown(parent) || exempt(parent) || getComputedStyle(parent).hyphens === 'auto') continue;
  for (const match of node.data.matchAll(/[^\s\-\/–—·]{2,}/g)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (lines.size > 1) problems.push({kind: 'broken-word', what: where(parent), text: match[0]});
  }
}

// a select shows its chosen option, an input its placeholder: measured in the box's own font
const canvas = document.createElement('canvas').getContext('2d');
for (const e of all.filter((e) => e.tagName === 'SELECT' || (e.tagName === 'INPUT' && e.placeholder && !e.value))) {
  const style = getComputedStyle(e);
  if (style.appearance === 'base-select') {  // a select drawn by the page wraps its text: its box holds it all
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) problems.push({kind: 'clipped-text', what: where(e), text: text(e)});
    continue;
  }
  canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const shownText = e.tagName === 'SELECT' ? (e.selectedOptions[0] || {}).text || '' : e.placeholder;
  const room = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - (e.tagName === 'SELECT' ? 20 : 0);
  const needs = canvas.measureText(shownText).width;
  if (needs > room + 1) problems.push({kind: 'clipped-text', what: where(e), text: shownText.slice(0, 60), needs: round(needs), room: round(room)});
}

for (const e of all.filter((e) => e.tagName === 'INPUT' && ['checkbox', 'radio'].includes(e.type))) {
  const box = e.getBoundingClientRect();
  if (Math.abs(box.width - box.height) > 1 || box.width < minTick - 0.5) {
    problems.push({kind: 'tick', what: where(e), width: round(box.width), height: round(box.height)});
  }
}

// controls drawn over each other (a label and the control inside it are one)
const controls = all.filter((e) => e.matches('a[href], button, input:not([type=hidden]), select, textarea, summary, label.check')
  && !e.closest('.sr-only') && !(e.tagName !== 'LABEL' && e.closest('label.check')));
// an element's box as far as the boxes around it that clip show it (a button scrolled out of the scroller is not there)
const clipped = (e) => {
  let box = e.getBoundingClientRect();
  box = {left: box.left, right: box.right, top: box.top, bottom: box.bottom};
  for (let n = e.parentElement; n && n !== document.body; n = n.parentElement) {
    if (getComputedStyle(n).overflow === 'visible') continue;
    const r = n.getBoundingClientRect();
    box = {left: Math.max(box.left, r.left), right: Math.min(box.right, r.right), top: Math.max(box.top, r.top), bottom: Math.min(box.bottom, r.bottom)};
  }
  return box;
};
const boxes = controls.map((e) => [e, clipped(e)]);
const meets = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
const onScreen = (b) => b.bottom > 0 && b.top < height && b.right - b.left > 0 && b.bottom - b.top > 0;
const layer = (e) => e.closest('.notice, .overlay, .flash, dialog[open]') || document.body;
for (let i = 0; i < boxes.length; i++) {
  for (let j = i + 1; j < boxes.length; j++) {
    const [a, ra] = boxes[i], [b, rb] = boxes[j];
    if (a.contains(b) || b.contains(a) || ra.bottom <= ra.top || rb.bottom <= rb.top || !meets(ra, rb)) continue;
    if (layer(a) !== layer(b)) continue;  // one over the other on purpose (a dialog over the page): `covered` judges notices
    problems.push({kind: 'overlap', what: where(a), text: text(a), other: where(b), other_text: text(b)});
  }
}

// notices (toasts, the undo bar) cover no control and not the header
const header = document.querySelector('header.bar');
for (const notice of all.filter((e) => e.matches('.notice'))) {
  const box = notice.getBoundingClientRect();
  if (header && shown(header) && meets(box, header.getBoundingClientRect())) problems.push({kind: 'covered', what: 'header.bar', by: where(notice)});
  for (const [e, r] of boxes) if (!notice.contains(e) && onScreen(r) && meets(box, r)) problems.push({kind: 'covered', what: where(e), text: text(e), by: where(notice)});
}

// Pause and End are never under anything (a tap's overlay, quiet mode's flash)
for (const e of all.filter((e) => e.matches('#toggle, #end'))) {
  const box = e.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (top && !e.contains(top)) problems.push({kind: 'covered', what: where(e), text: text(e), by: where(top)});
}

// the mission's foot: nothing of the stage, and no control of the scroller, is drawn behind Pause and End
const foot = document.querySelector('body.in-game #controls');
if (foot && shown(foot)) {
  const top = foot.getBoundingClientRect().top;
  for (const e of all.filter((e) => e.closest('.stage') && !e.closest('.sr-only') && e.children.length === 0 && e.textContent.trim())) {
    const box = e.getBoundingClientRect();
    if (box.bottom > top + 1) problems.push({kind: 'below', what: where(e), text: text(e), bottom: round(box.bottom), foot: round(top)});
  }
}
return problems;
"""


def layout_problems(driver) -> list[dict]:
    """What is cut off, sticks out or is covered on the page as it is now (see the module's kinds)."""
    return driver.execute_script(_PROBLEMS, MIN_TICK_PX)


def describe(problems: list[dict]) -> str:
    """One line per problem, for a failing test's message."""
    return "\n".join(", ".join(f"{key}={value}" for key, value in problem.items()) for problem in problems)
