(function () {
"use strict";
var D = document, HL = "rgb(230,0,230)";
var F = [], mods = [], term = "", i;
var det = D.getElementById("details");
var mat = D.getElementById("matched");
var unz = D.getElementById("unzoom");
var sea = D.getElementById("search");
function el(g, tag) {
	return g.getElementsByTagName(tag)[0] || null;
}
var ms = el(D, "defs").getElementsByTagName("text");
var gs = D.getElementById("frames").getElementsByTagName("g");
for (i = 0; i < ms.length; i++)
	mods.push(ms[i].textContent);
for (i = 0; i < gs.length; i++) {
	var g = gs[i], r = el(g, "rect");
	var t = el(g, "title").textContent;
	var n = t.slice(0, t.lastIndexOf(" \u2014 "));
	var m = g.getAttribute("data-m");
	if (m !== null)
		n = n.slice(0, n.length - mods[+m].length - 3);
	F.push({ g: g, r: r, tx: el(g, "text"), t: t, name: n,
		root: g.id === "root", x: +r.getAttribute("x"),
		w: +r.getAttribute("width"),
		y: +r.getAttribute("y") });
	g.fi = i;
	/* the keyboard: one frame in the tab order at a time (the root
	 * first), the arrows move between them, Enter zooms */
	g.setAttribute("tabindex", g.id === "root" ? "0" : "-1");
	g.setAttribute("role", "button");
	g.setAttribute("aria-label", t);
}
unz.setAttribute("tabindex", "0");
unz.setAttribute("role", "button");
sea.setAttribute("tabindex", "0");
sea.setAttribute("role", "button");
function label(f, x, w) {
	var n = Math.floor((w - 3) / CH), s = "";
	if (n >= 3)
		s = f.name.length <= n ? f.name :
			f.name.slice(0, n - 2) + "..";
	if (!f.tx && !s)
		return;
	if (!f.tx) {
		f.tx = D.createElementNS(
			"http://www.w3.org/2000/svg", "text");
		f.tx.setAttribute("y", f.y + 11);
		f.g.appendChild(f.tx);
	}
	f.tx.setAttribute("x", (x + 3).toFixed(2));
	f.tx.textContent = s;
}
function place(f, x, w, cls) {
	x = +x.toFixed(2);
	w = +w.toFixed(2);
	f.r.setAttribute("x", x.toFixed(2));
	f.r.setAttribute("width", w.toFixed(2));
	label(f, x, w);
	f.g.setAttribute("class", cls);
}
function unzoom() {
	for (var j = 0; j < F.length; j++)
		place(F[j], F[j].x, F[j].w, "");
	unz.setAttribute("class", "btn off");
}
function zoom(z) {
	var e = 0.011, s = CW / z.w, j, f;
	for (j = 0; j < F.length; j++) {
		f = F[j];
		if (f.y > z.y && f.x <= z.x + e &&
		    f.x + f.w >= z.x + z.w - e)
			place(f, XP, CW, "p");
		else if (f.y <= z.y && f.x >= z.x - e &&
			 f.x + f.w <= z.x + z.w + e)
			place(f, XP + (f.x - z.x) * s, f.w * s, "");
		else
			f.g.setAttribute("class", "h");
	}
	unz.setAttribute("class", "btn");
}
function matcher(s) {
	try {
		return new RegExp(s, "i");
	} catch (x) {
		return new RegExp(s.replace(/[^\w\s]/g, "\\$&"), "i");
	}
}
function find(s) {
	var re = s ? matcher(s) : null, iv = [], tot = 0;
	var end = -1, j, f, hit;
	term = s;
	for (j = 0; j < F.length; j++) {
		f = F[j];
		hit = re !== null && !f.root && re.test(f.name);
		f.r.style.fill = hit ? HL : "";
		if (hit)
			iv.push([f.x, f.x + f.w]);
	}
	iv.sort(function (a, b) { return a[0] - b[0]; });
	for (j = 0; j < iv.length; j++) {
		tot += Math.max(0, iv[j][1] - Math.max(iv[j][0], end));
		end = Math.max(end, iv[j][1]);
	}
	mat.textContent = re ? "Matched: " +
		(100 * tot / CW).toFixed(1) + "%" : " ";
}
function ask() {
	var s = prompt("Search (regular expression or text, " +
		       "case-insensitive)", term);
	if (s !== null)
		find(s);
}
function frameOf(n) {
	while (n && n.fi === undefined)
		n = n.parentNode;
	return n ? F[n.fi] : null;
}
D.addEventListener("mouseover", function (ev) {
	var f = frameOf(ev.target);
	det.textContent = f ? f.t : " ";
});
/* A click, or Enter on the focused element: false when t is none of
 * ours. */
function act(t) {
	var f = frameOf(t);
	if (t === unz || (f && f.root))
		unzoom();
	else if (t === sea)
		ask();
	else if (f)
		zoom(f);
	else
		return false;
	return true;
}
D.addEventListener("click", function (ev) {
	act(ev.target);
});
function now(f) {
	return { x: +f.r.getAttribute("x"), w: +f.r.getAttribute("width") };
}
/* The frame the arrow key k goes to from f: Left and Right the next shown
 * one in its row, Up a callee (the nearest row above, leftmost), Down its
 * caller; null at an edge. */
function toward(f, k) {
	var a = now(f), best = null, bd = Infinity, j, o, b, d;
	var row = k === "ArrowLeft" || k === "ArrowRight";
	for (j = 0; j < F.length; j++) {
		o = F[j];
		if (o === f || o.g.getAttribute("class") === "h")
			continue;
		b = now(o);
		if (row) {
			d = o.y !== f.y ? -1 : k === "ArrowLeft" ?
				a.x - b.x : b.x - a.x;
		} else {
			d = (k === "ArrowUp" ? f.y - o.y : o.y - f.y) * 1e6 +
				b.x;
			if (b.x + b.w <= a.x || b.x >= a.x + a.w)
				d = -1;
		}
		if (d > 0 && d < bd) {
			bd = d;
			best = o;
		}
	}
	return best;
}
function focusFrame(f, o) {
	f.g.setAttribute("tabindex", "-1");
	o.g.setAttribute("tabindex", "0");
	if (o.g.focus)
		o.g.focus();
	det.textContent = o.t;
}
D.addEventListener("focusin", function (ev) {
	var f = frameOf(ev.target);
	if (f)
		det.textContent = f.t;
});
D.addEventListener("keydown", function (ev) {
	var f = frameOf(ev.target), o;
	if (ev.key === "Enter" || ev.key === " ") {
		if (act(ev.target))
			ev.preventDefault();
	} else if (f && /^Arrow(Left|Right|Up|Down)$/.test(ev.key)) {
		ev.preventDefault();
		o = toward(f, ev.key);
		if (o)
			focusFrame(f, o);
	} else if (ev.key === "Escape") {
		unzoom();
		find("");
	} else if (ev.key === "/" || ((ev.ctrlKey || ev.metaKey) &&
				      ev.key === "f")) {
		ev.preventDefault();
		ask();
	}
});
})();
