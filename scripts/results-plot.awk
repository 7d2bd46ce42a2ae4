# SPDX-License-Identifier: GPL-2.0
# The flush scaling plot (scripts/results.sh): an SVG, log-log, of a
# bench-flush run's table (its output file on stdin), one panel per
# layout, one line per method: seconds against N (not ipnew: that run's
# companion is not the one posted, see results.md).  Written as text, so
# that `make results` regenerates it byte for byte and its check compares.
#
#   awk -v run=RUN_ID -f scripts/results-plot.awk Documentation/runs/RUN_ID/output

function lx(n) { return log(n) / log(10) }
function px(n, p) { return p * PW + ML + (lx(n) - XMIN) / (XMAX - XMIN) * (PW - ML - MR) }
function py(s) { return MT + (YMAX - lx(s)) / (YMAX - YMIN) * (PH - MT - MB) }
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); return s }

BEGIN {
	FS = "|"
	PW = 300; PH = 300; ML = 48; MR = 12; MT = 40; MB = 44
	XMIN = lx(8000); XMAX = lx(100000); YMIN = -2; YMAX = 3
	nlay = split("one rfc host", lays, " ")
	title["one"] = "one subnet"; title["rfc"] = "/24s of 250"; title["host"] = "/32s"
	nm = split("add ip secfirst plain flag flagprim bulk", meths, " ")
	split("#777777 #d62728 #ff7f0e #8c564b #1f77b4 #17becf #2ca02c", cols, " ")
	for (i = 1; i <= nm; i++) col[meths[i]] = cols[i]
	desc["add"] = "adding them (RTM_NEWADDR, one socket)"; desc["ip"] = "stock ip flush"
	desc["secfirst"] = "secondaries first"; desc["plain"] = "plain deletes, no promotion"
	desc["flag"] = "IFA_F_FLUSH"; desc["flagprim"] = "IFA_F_FLUSH, primaries only"
	desc["bulk"] = "bulk RTM_DELADDR"
}

/^\| layout \|/ {
	for (i = 2; i < NF; i++) {
		h = $i; gsub(/^ +| +$/, "", h)
		idx[h] = i
	}
	next
}

/^\| (one|rfc|host) \|/ && ("N" in idx) {
	l = $idx["layout"]; gsub(/ /, "", l)
	n = $idx["N"]; gsub(/ /, "", n)
	for (i = 1; i <= nm; i++) {
		m = meths[i]
		if (!(m in idx))
			continue
		v = $idx[m]; gsub(/ /, "", v)
		if (v == "-" || v + 0 <= 0)
			continue
		k = l SUBSEP m
		cnt[k]++
		xs[k, cnt[k]] = n; ys[k, cnt[k]] = v
	}
}

END {
	W = nlay * PW; H = PH + 20 * int((nm + 1) / 2) + 36
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H, W, H
	printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
	printf "<text x=\"%d\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">Seconds to empty a device (guest time under instruction counting), log-log; run %s</text>\n", W / 2, esc(run)
	for (p = 0; p < nlay; p++) {
		l = lays[p + 1]
		x0 = px(8000, p); x1 = px(100000, p); y0 = py(10 ^ YMAX); y1 = py(10 ^ YMIN)
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (x0 + x1) / 2, MT - 8, esc(title[l])
		printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", x0, y0, x1 - x0, y1 - y0
		for (e = YMIN; e <= YMAX; e++) {
			y = py(10 ^ e)
			printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", x0, y, x1, y
			printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 4, y + 4, (e < 0 ? sprintf("%g", 10 ^ e) : sprintf("%d", 10 ^ e))
		}
		split("10000 20000 40000 80000", ticks, " ")
		for (t = 1; t <= 4; t++) {
			x = px(ticks[t], p)
			printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", x, y0, x, y1
			printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%dk</text>\n", x, y1 + 14, ticks[t] / 1000
		}
		printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">addresses (N)</text>\n", (x0 + x1) / 2, y1 + 30
		for (i = 1; i <= nm; i++) {
			m = meths[i]; k = l SUBSEP m
			if (!cnt[k])
				continue
			pts = ""
			for (j = 1; j <= cnt[k]; j++)
				pts = pts sprintf("%s%.1f,%.1f", j > 1 ? " " : "", px(xs[k, j], p), py(ys[k, j]))
			printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", pts, col[m], m == "add" ? " stroke-dasharray=\"5,3\"" : ""
			for (j = 1; j <= cnt[k]; j++)
				printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", px(xs[k, j], p), py(ys[k, j]), col[m]
		}
	}
	# the legend, two columns
	for (i = 1; i <= nm; i++) {
		x = 20 + ((i - 1) % 2) * (W / 2); y = PH + 10 + 20 * int((i - 1) / 2)
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", x, y, x + 24, y, col[meths[i]], meths[i] == "add" ? " stroke-dasharray=\"5,3\"" : ""
		printf "<text x=\"%d\" y=\"%d\">%s: %s</text>\n", x + 30, y + 4, meths[i], esc(desc[meths[i]])
	}
	printf "<text x=\"20\" y=\"%d\">A line doubling per doubling of N is linear; quadrupling, quadratic.</text>\n", H - 10
	print "</svg>"
}
