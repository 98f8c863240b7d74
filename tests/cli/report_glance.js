/* What a person sees at a glance, measured from the page's geometry in a
 * real browser (tests/cli/report_glance.sh, make screenshots): the
 * problems found, as JSON text, "[]" when none.
 *  - overlap: two text boxes of one chart (an <svg>) that overlap by more
 *    than a pixel each way;
 *  - unit: an axis title (text.atitle) without its unit in parentheses
 *    at the end ("latency (ms)", "request (#)");
 *  - wide: a table wider than the window or than its own box that does
 *    not scroll with its cue (.scroll-cue, right after it) shown;
 *  - broken: a table header or row name with a word broken across two
 *    lines. */
(() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  const shown = e => { const s = getComputedStyle(e);
    return s.display !== "none" && s.visibility !== "hidden"; };
  document.querySelectorAll("svg").forEach((svg, si) => {
    if (!shown(svg) || svg.closest("details:not([open])")) return;
    const boxes = [...svg.querySelectorAll("text")]
      .filter(t => t.textContent.trim() && shown(t))
      .map(t => [t, t.getBoundingClientRect()])
      .filter(([t, r]) => r.width > 0 && r.height > 0);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][1], b = boxes[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1)
          out.push({overlap: [boxes[i][0].textContent, boxes[j][0].textContent],
                    chart: svg.getAttribute("aria-label") || "svg " + si});
      }
    svg.querySelectorAll("text.atitle").forEach(t => {
      if (!/\([^()]+\)\s*$/.test(t.textContent))
        out.push({unit: t.textContent, chart: svg.getAttribute("aria-label")});
    });
  });
  document.querySelectorAll("table").forEach(tb => {
    if (!shown(tb)) return;
    const r = tb.getBoundingClientRect();
    const over = r.right > vw + 0.5 || tb.scrollWidth > tb.clientWidth + 1;
    if (over) {
      const cue = tb.nextElementSibling;
      const scrolls = ["auto", "scroll"].includes(getComputedStyle(tb).overflowX) &&
        r.right <= vw + 0.5;
      if (!(scrolls && cue && cue.classList.contains("scroll-cue") && shown(cue)))
        out.push({wide: tb.className || "table", right: Math.round(r.right),
                  scroll: tb.scrollWidth, client: tb.clientWidth, vw});
    }
    tb.querySelectorAll("th, td:first-child").forEach(th => {
      const text = th.firstChild && th.firstChild.nodeType === 3 ? th.firstChild : null;
      if (!text) return;
      const re = /\S+/g; let m;
      while ((m = re.exec(text.data))) {
        const rg = document.createRange();
        rg.setStart(text, m.index); rg.setEnd(text, m.index + m[0].length);
        const lines = new Set([...rg.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
        if (lines.size > 1) out.push({broken: m[0]});
      }
    });
  });
  return JSON.stringify(out);
})()
