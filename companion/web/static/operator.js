// The operator's tools: confirmation before destructive buttons, A/U keyboard shortcuts,
// and the correction editor (paint cells and worker spaces, then send the board).
// Everything is delegated from the document, because live.js replaces the page's
// changing part on every update.
(function () {
  "use strict";
  var GRID = 16;
  document.documentElement.classList.add("scripted");  // shows the editor (it needs scripts)

  // Confirmation: any form with data-confirm asks first.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { ev.preventDefault(); }
  }, true);

  // Shortcuts: A accepts a flagged move, U rejects it or undoes the last turn.
  function typing(target) {
    if (!target || !target.tagName) { return false; }
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat || typing(ev.target)) { return; }
    var key = ev.key.toLowerCase();
    var button = null;
    if (key === "a") { button = document.getElementById("accept"); }
    if (key === "u") { button = document.getElementById("undo") || document.getElementById("dismiss"); }
    if (button) { ev.preventDefault(); button.click(); }
  });

  // The correction editor.
  function editorState(editor) {
    if (!editor.companionBoard) {
      var board = JSON.parse(editor.getAttribute("data-board"));
      editor.companionBoard = {
        cells: board.cells.map(function (row) { return row.split(""); }),
        workers: board.workers.rows.concat(board.workers.cols),
        original: board.cells.join("") + JSON.stringify(board.workers)
      };
    }
    return editor.companionBoard;
  }

  function currentPaint(editor) {
    var pressed = editor.querySelector(".paint[aria-pressed='true']");
    var kind = editor.querySelector("input[name='worker-kind']:checked");
    return { colour: pressed ? pressed.getAttribute("data-paint") : ".", kind: kind ? kind.value : "v" };
  }

  function boardJson(state) {
    return {
      cells: state.cells.map(function (row) { return row.join(""); }),
      workers: { rows: state.workers.slice(0, GRID), cols: state.workers.slice(GRID) }
    };
  }

  function showChanges(editor, state) {
    var now = boardJson(state);
    var changed = now.cells.join("") + JSON.stringify(now.workers) !== state.original;
    editor.classList.toggle("dirty", changed);
    var note = editor.querySelector(".editor-changes");
    if (note) { note.textContent = changed ? "Board changed: send it when it matches the table." : ""; }
  }

  function paintCell(editor, rect) {
    var state = editorState(editor);
    var cell = parseInt(rect.getAttribute("data-cell"), 10);
    var colours = JSON.parse(editor.getAttribute("data-colours"));
    var paint = currentPaint(editor).colour;
    var row = Math.floor(cell / GRID);
    var col = cell % GRID;
    if (state.cells[row][col] === paint) { paint = "."; }  // a second click empties it
    state.cells[row][col] = paint;
    rect.setAttribute("data-fish", paint);
    rect.setAttribute("fill", colours[paint] || "none");
    rect.setAttribute("aria-label", "row " + (row + 1) + ", column " + (col + 1));
    showChanges(editor, state);
  }

  function paintWorker(editor, line) {
    var state = editorState(editor);
    var colours = JSON.parse(editor.getAttribute("data-colours"));
    var paint = currentPaint(editor);
    var code = paint.colour === "." ? null : paint.colour + paint.kind;
    if (state.workers[line] === code) { code = null; }  // a second click empties it
    state.workers[line] = code;
    var svg = editor.querySelector("svg.board");
    var mark = svg.querySelector("circle.worker[data-line='" + line + "']");
    var letter = svg.querySelector("text.wkind[data-line='" + line + "']");
    if (mark) {
      mark.setAttribute("visibility", code ? "visible" : "hidden");
      mark.setAttribute("fill", code ? colours[code[0]] : "none");
      mark.setAttribute("r", code && code[1] === "d" ? "7.5" : "5.5");
      mark.setAttribute("data-worker", code || "");
    }
    if (letter) {
      letter.setAttribute("visibility", code ? "visible" : "hidden");
      letter.textContent = code ? code[1] : "";
    }
    showChanges(editor, state);
  }

  document.addEventListener("click", function (ev) {
    var target = ev.target;
    var editor = target.closest && target.closest(".editor");
    if (!editor) { return; }
    var paint = target.closest(".paint");
    if (paint) {
      editor.querySelectorAll(".paint").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      paint.setAttribute("aria-pressed", "true");
      return;
    }
    if (target.id === "send-correction") {
      var form = document.getElementById("correct-form");
      form.querySelector("textarea[name='board']").value = JSON.stringify(boardJson(editorState(editor)));
      editor.classList.remove("dirty");
      form.submit();
      return;
    }
    if (target.hasAttribute("data-cell")) { paintCell(editor, target); return; }
    if (target.hasAttribute("data-line")) {
      paintWorker(editor, parseInt(target.getAttribute("data-line"), 10));
    }
  });
})();
