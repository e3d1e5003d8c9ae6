// Live updates: on every server-sent "state" event, fetch the page's changing part again.
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root || !window.EventSource) { return; }
  var url = root.getAttribute("data-partial");
  var busy = false;
  var again = false;

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { root.innerHTML = html; })
      .catch(function () { /* the next event retries */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  var source = new EventSource(root.getAttribute("data-events") || "/api/events");
  source.addEventListener("state", function (ev) {
    var version;
    try { version = String(JSON.parse(ev.data).version); } catch (e) { return; }
    var shown = root.querySelector("[data-version]");
    var current = shown ? shown.getAttribute("data-version") : root.getAttribute("data-version");
    if (version === current) { return; }
    if (root.querySelector(".editor.dirty")) { return; }  // keep an unsent correction on screen
    refresh();
  });
  source.addEventListener("error", function () { document.body.classList.add("offline"); });
  source.addEventListener("open", function () { document.body.classList.remove("offline"); });
})();
