/* Wayfarer chat page, part 2: the offers an answer shows, as a table to compare at a glance, and a
 * forecast as a small chart.
 *
 * A chat answer's tool calls carry the flight and hotel offers its text lists as data (`results`, typed
 * in /openapi.json). Each call with offers becomes one table, a row per offer marked `data-offer` (with
 * `data-price`, the offer's total), sortable by price from its header, with the sandbox badge on each
 * row whose data is synthetic. Every cell is set with textContent: offers are a provider's data.
 *
 * A row is also its offer's source: when the answer cites the offer, the row carries the [n] and the
 * element id the citation links to, and the Sources list leaves that offer out (`result_ids` say which
 * source is which offer). Answers saved before `result_ids` list every source as before.
 */
"use strict";
(function () {
  const el = (tag, cls, text) => window.wayfarerRender.el(tag, cls, text);

  /** "21,400 JPY", "1,234.50 EUR": the amount in the currency's own digits, as the text writes it. */
  function money(amount, currency) {
    try {
      return new Intl.NumberFormat("en", { style: "currency", currency, currencyDisplay: "code" }).format(amount);
    } catch (e) {
      return amount.toFixed(2) + " " + currency;
    }
  }

  function hhmm(iso) {
    return String(iso).slice(11, 16); // local time at the airport, as the provider gave it
  }

  function day(iso) {
    return String(iso).slice(0, 10);
  }

  function duration(minutes) {
    if (!minutes) return "";
    const h = Math.floor(minutes / 60), m = minutes % 60;
    return h ? h + "h" + String(m).padStart(2, "0") : m + "min";
  }

  function nights(offer) {
    return Math.round((Date.parse(offer.check_out) - Date.parse(offer.check_in)) / 86400000);
  }

  function titled(name) {
    return String(name).toLowerCase().replace(/(^|[\s'-])\S/g, (c) => c.toUpperCase());
  }

  /** One way of a flight offer: "LHR 08:10 → NRT 05:25 (+1)", its stops and its flights. */
  function way(it) {
    const first = it.segments[0], last = it.segments[it.segments.length - 1];
    const plus = day(last.arrival) > day(first.departure) ? " (+" + Math.round((Date.parse(day(last.arrival)) - Date.parse(day(first.departure))) / 86400000) + ")" : "";
    const stops = it.segments.length - 1;
    return {
      when: day(first.departure) + " " + first.origin + " " + hhmm(first.departure) + " → " + last.destination + " " + hhmm(last.arrival) + plus,
      stops: stops ? stops + " stop" + (stops > 1 ? "s" : "") + " via " + it.segments.slice(0, -1).map((s) => s.destination).join(", ") : "nonstop",
      duration: duration(it.duration_minutes),
      flights: (first.carrier_name || first.carrier) + " " + it.segments.map((s) => s.carrier + s.number).join("/"),
    };
  }

  const KINDS = {
    flight_offer: {
      title: "Flights",
      columns: ["Flight", "Stops", "Duration", "Airline", "Cabin", "Price"],
      cells(o) {
        const ways = o.itineraries.map(way);
        const join = (k) => ways.map((w) => w[k]).join(" · return ");
        const who = o.adults > 1 ? " for " + o.adults : "";
        return [join("when"), join("stops"), join("duration"), join("flights"), String(o.cabin).replace(/_/g, " ").toLowerCase(), money(o.price, o.currency) + who];
      },
    },
    hotel_offer: {
      title: "Hotels",
      columns: ["Hotel", "Dates", "Room", "A night", "Price"],
      cells(o) {
        const n = nights(o);
        return [
          titled(o.name),
          o.check_in + " → " + o.check_out + " (" + n + " night" + (n === 1 ? "" : "s") + ")",
          o.room_description || o.room || "—",
          n ? "about " + money(o.price / n, o.currency) : "",
          money(o.price, o.currency),
        ];
      },
    },
  };

  /** Sort the table's offer rows by price, lowest first, or highest first when `down`. */
  function sortByPrice(table, down) {
    const body = table.tBodies[0];
    const rows = Array.from(body.rows).sort((a, b) => (Number(a.dataset.price) - Number(b.dataset.price)) * (down ? -1 : 1));
    body.append(...rows);
    const button = table.querySelector("th button.sort");
    button.setAttribute("aria-sort", down ? "descending" : "ascending");
    button.closest("th").setAttribute("aria-sort", down ? "descending" : "ascending");
    button.textContent = "Price " + (down ? "↓" : "↑");
  }

  /** A caption's " · fetched <time>": when the oldest of `items` was fetched (how fresh they are). */
  function fetchedNote(caption, items) {
    const fetched = items.map((o) => o.fetched_at).filter(Boolean).sort()[0];
    if (fetched) caption.append(" · ", window.wayfarerRender.time(fetched, null, "fetched "));
  }

  /** A table row that is the source the answer cites as [n] (`source`: its number and, for the first row
   * showing it, the element id the citation links to): marked, focusable, "[n]" before its first cell. */
  function citedRow(row, firstCell, source) {
    if (!source) return;
    row.dataset.n = String(source.n);
    if (source.id) row.id = source.id;
    row.tabIndex = -1;  // a citation brings it into view and focus
    firstCell.prepend(el("span", "source-num", "[" + source.n + "]"), " ");
  }

  /** `offers` as a table; `cited(i)`: the source (n, element id) of the i-th offer, if the answer cites it. */
  function table(kind, offers, cited) {
    const spec = KINDS[kind];
    const t = el("table", "offers " + kind.replace("_", "-"));
    const caption = el("caption", null, spec.title + " (" + offers.length + ")");
    fetchedNote(caption, offers);
    t.append(caption);
    const head = el("tr");
    for (const name of spec.columns) {
      const th = el("th");
      th.scope = "col";
      if (name === "Price") {
        const sort = el("button", "sort", "Price");
        sort.type = "button";
        sort.title = "Sort by price";
        sort.addEventListener("click", () => sortByPrice(t, sort.getAttribute("aria-sort") === "ascending"));
        th.append(sort);
      } else th.textContent = name;
      head.append(th);
    }
    t.createTHead().append(head);
    const body = t.createTBody();
    offers.forEach((o, at) => {
      const row = el("tr");
      row.dataset.offer = kind;
      row.dataset.price = String(o.price);
      spec.cells(o).forEach((text, i) => {
        const td = el("td", null, text);
        if (i === 0 && o.sandbox) {
          const badge = el("span", "sandbox", "sandbox");
          badge.title = "synthetic data from the offline sandbox, not a real fare or availability";
          td.append(" ", badge);
        }
        row.append(td);
      });
      citedRow(row, row.cells[0], cited(at));
      body.append(row);
    });
    return t;
  }

  const SVG = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  const WEEKDAY = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

  /** A whole degree as the answer's text writes it (Python's rounding: a half goes to the even one). */
  function degrees(v) {
    const r = Math.round(v);
    return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  /** A forecast as a small chart: each day's high and low (°C) as two lines, its chance of rain as a
   * bar; the same numbers in a compact table under it, which screen readers read (the chart itself is
   * hidden from them). A day the answer cites is its table row, with the [n]: `cited(i)` as for offers. */
  function forecastChart(days, cited) {
    const order = days.map((d, i) => [d, i]).sort((a, b) => (a[0].date < b[0].date ? -1 : 1));
    days = order.map(([d]) => d);
    const fig = el("figure", "forecast");
    fig.dataset.forecast = days[0].place;
    const caption = el("figcaption", null, days[0].place + ": the forecast, °C" + (days[0].sandbox ? " (sandbox)" : ""));
    fetchedNote(caption, days);
    fig.append(caption);
    const temps = days.flatMap((d) => [d.temperature_min, d.temperature_max]).filter((t) => typeof t === "number");
    const lo = Math.min(...temps, 0), hi = Math.max(...temps, 1);
    const step = 64, top = 18, height = 90, width = step * days.length;
    const y = (t) => top + (hi - t) / (hi - lo || 1) * height;
    const chart = svg("svg", { viewBox: "0 0 " + width + " 150", width: "100%", "aria-hidden": "true", focusable: "false" });
    const line = (key, cls) => {
      const points = days.map((d, i) => (typeof d[key] === "number" ? (i * step + step / 2) + "," + y(d[key]).toFixed(1) : null)).filter(Boolean);
      chart.append(svg("polyline", { points: points.join(" "), class: cls, fill: "none" }));
      days.forEach((d, i) => {
        if (typeof d[key] !== "number") return;
        chart.append(svg("circle", { cx: i * step + step / 2, cy: y(d[key]).toFixed(1), r: 3, class: cls }));
        chart.append(svg("text", { x: i * step + step / 2, y: (y(d[key]) + (key === "temperature_max" ? -6 : 14)).toFixed(1), "text-anchor": "middle", class: "value" }, degrees(d[key]) + "°"));
      });
    };
    days.forEach((d, i) => {
      const rain = typeof d.precipitation_probability === "number" ? d.precipitation_probability : 0;
      chart.append(svg("rect", { x: i * step + step / 2 - 8, y: 140 - rain * 0.3, width: 16, height: rain * 0.3, class: "rain" }));
      const day = new Date(d.date + "T00:00:00Z");
      chart.append(svg("text", { x: i * step + step / 2, y: 148, "text-anchor": "middle", class: "day" }, WEEKDAY[day.getUTCDay()] + " " + day.getUTCDate()));
    });
    line("temperature_max", "high");
    line("temperature_min", "low");
    fig.append(chart);
    const numbers = el("table", "forecast-days");
    const head = el("tr");
    for (const name of ["Day", "Low °C", "High °C", "Chance of rain"]) head.append(el("th", null, name));
    numbers.append(head);
    order.forEach(([d, at]) => {
      const row = el("tr");
      row.dataset.day = d.date;
      const n = (v, unit) => (typeof v === "number" ? degrees(v) + unit : "—");
      const cells = [d.date, n(d.temperature_min, ""), n(d.temperature_max, ""), n(d.precipitation_probability, "%")];
      cells.forEach((text) => row.append(el("td", null, text)));
      citedRow(row, row.cells[0], cited(at));
      numbers.append(row);
    });
    fig.append(numbers);
    return fig;
  }

  /** What a tool call's results look like on the page: a table of offers, or a forecast chart (none
   * for the rest, which the answer's text lists). `sources`: the answer's, numbered; `sourceId(n)`: the
   * element id a citation of source n links to. Returns the views and the sources that are rows now
   * (the Sources list leaves them out): number → what the row shows ("offers" or "days"). */
  function resultViews(calls, sources, sourceId) {
    const views = [], rows = new Map();  // a source's number: what its row shows ("offers", "days")
    const byId = new Map((sources || []).map((s) => [s.id, s]));
    // The source a result is, if the answer cites it: its number, and the element id its [n] links to
    // (one element per source: the first row that shows it).
    const cite = (id, noun) => {
      const source = byId.get(id);
      if (!source) return null;
      const first = !rows.has(source.n);
      rows.set(source.n, noun);
      return { n: source.n, id: first && sourceId ? sourceId(source.n) : null };
    };
    for (const c of calls || []) {
      const results = Array.isArray(c.results) ? c.results : [];
      const ids = Array.isArray(c.result_ids) && c.result_ids.length === results.length ? c.result_ids : [];
      for (const kind of Object.keys(KINDS)) {
        const picked = results.map((r, i) => [r, ids[i]]).filter(([r]) => r && r.kind === kind && typeof r.price === "number");
        if (!picked.length) continue;
        views.push(table(kind, picked.map(([r]) => r), (at) => cite(picked[at][1], "offers")));
      }
      const days = results.map((r, i) => [r, ids[i]]).filter(([r]) => r && r.kind === "weather" && typeof r.date === "string");
      if (days.length) views.push(forecastChart(days.map(([r]) => r), (at) => cite(days[at][1], "days")));
    }
    return { views, rows };
  }

  window.wayfarerOffers = { resultViews, sortByPrice };
})();
