// Live room view: each SSE "table" message replaces that table's card.
// Every user-typed string goes through textContent, never innerHTML.
"use strict";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function safeLink(url) {
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
}

function renderCard(c) {
  const card = el("article", "card presence-" + c.presence + " status-" + c.status);
  if (c.dispute) card.classList.add("dispute");
  if (c.desync) card.classList.add("desync");
  card.dataset.table = c.table;
  card.dataset.seq = c.seq;
  card.dataset.eventSeq = c.last_event_seq;
  const head = el("header");
  const h2 = el("h2");
  const link = safeLink(c.dashboard);
  if (link) {
    const a = el("a", null, c.table);
    a.href = link;
    h2.appendChild(a);
  } else {
    h2.textContent = c.table;
  }
  head.appendChild(h2);
  head.appendChild(el("span", "presence", c.presence));
  card.appendChild(head);
  if (c.game === null) {
    card.appendChild(el("p", "game", "no game"));
  } else {
    card.appendChild(el("p", "game", (c.board || "") + " · " + (c.variant || "")));
    let round = "ended";
    if (!c.ended) round = c.rounds ? "round " + c.round + "/" + c.rounds : "turn " + (c.turn || "-");
    if (!c.ended && c.whose_turn) round += " · " + c.whose_turn + " to play";
    card.appendChild(el("p", "round", round));
    const scores = el("ol", "scores");
    for (const s of c.seats) {
      const li = el("li", c.leader.includes(s.name) ? "leader" : null);
      li.appendChild(el("span", "name", s.name));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", "score", s.score));
      scores.appendChild(li);
    }
    card.appendChild(scores);
  }
  if (c.chain_head) {
    const chain = el("p", "chain", "log chain head ");
    chain.appendChild(el("code", null, c.chain_head));
    card.appendChild(chain);
  }
  if (c.dispute || c.desync) {
    let text = c.desync ? "desync" : "dispute";
    if (c.violations.length) text += ": " + c.violations.join(", ");
    card.appendChild(el("p", "alert", text));
  }
  if (c.rejected) {
    const plural = c.rejected === 1 ? "" : "s";
    card.appendChild(el("p", "dropped", c.rejected + " unusable message" + plural + " dropped"));
  }
  return card;
}

function place(card) {
  const main = document.getElementById("tables");
  const old = Array.from(main.children).find((n) => n.dataset.table === card.dataset.table);
  if (old) {
    old.replaceWith(card);
    return;
  }
  const after = Array.from(main.children).find((n) => n.dataset.table > card.dataset.table);
  main.insertBefore(card, after || null);
}

function connect() {
  const live = document.getElementById("live");
  const source = new EventSource("events");
  source.onopen = () => { live.textContent = "live"; live.className = "live on"; };
  source.onerror = () => { live.textContent = "reconnecting…"; live.className = "live off"; };
  source.addEventListener("table", (msg) => place(renderCard(JSON.parse(msg.data))));
  source.addEventListener("gone", (msg) => {
    const table = JSON.parse(msg.data).table;
    const main = document.getElementById("tables");
    const card = Array.from(main.children).find((n) => n.dataset.table === table);
    if (card) card.remove();
  });
}

document.addEventListener("DOMContentLoaded", connect);
