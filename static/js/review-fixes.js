// A review round's ranked fixes: add, edit, reorder (up/down), delete and tag each fix. The list is kept as JSON
// in the hidden #fixes-input; every change fires its `input` event, which round.js turns into a save.
(function () {
  "use strict";

  const MAX_FIXES = 20;
  const MAX_TEXT = 300;
  const CATEGORIES = [
    ["correctness", "Correctness"],
    ["admission", "Admission"],
    ["placement", "Placement"],
    ["infrastructure", "New infrastructure"],
  ];
  const input = document.getElementById("fixes-input");
  const list = document.getElementById("fixes-list");
  if (!input || !list) return;
  const empty = document.getElementById("fixes-empty");
  const status = document.getElementById("fixes-status");
  const addForm = document.getElementById("fix-add");
  const newText = document.getElementById("fix-new-text");
  const newCategory = document.getElementById("fix-new-category");
  const undoBar = document.getElementById("fix-undo");
  const undoText = document.getElementById("fix-undo-text");
  const undoButton = document.getElementById("fix-undo-button");

  let fixes = [];
  try {
    const data = JSON.parse(document.getElementById("review-fixes-data").textContent);
    if (Array.isArray(data)) fixes = data.filter((f) => f && typeof f.text === "string");
  } catch (error) {
    fixes = [];
  }
  input.value = JSON.stringify(fixes);

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) node.appendChild(child);
    return node;
  }

  function announce(text) {
    if (status) status.textContent = text;
  }

  function changed(message) {
    input.value = JSON.stringify(fixes);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    if (message) announce(message);
  }

  function render(focus) {
    list.textContent = "";
    fixes.forEach((fix, i) => {
      const n = i + 1;
      const text = el("textarea", {
        id: `fix-text-${n}`, maxlength: String(MAX_TEXT), "data-fix-field": "text", rows: "2",
        "aria-label": `Fix ${n}`,
      });
      text.value = fix.text;
      text.addEventListener("input", () => {
        fixes[i].text = text.value.slice(0, MAX_TEXT);
        changed();
      });
      const select = el("select", { id: `fix-category-${n}`, "data-fix-field": "category", "aria-label": `Fix ${n} category` });
      for (const [value, label] of CATEGORIES) {
        const option = el("option", { value, text: label });
        if (value === fix.category) option.selected = true;
        select.appendChild(option);
      }
      select.addEventListener("change", () => {
        fixes[i].category = select.value;
        changed(`Fix ${n} is now ${select.options[select.selectedIndex].text.toLowerCase()}.`);
      });
      const up = el("button", { type: "button", class: "button small", "data-fix-action": "up", "aria-label": `Move fix ${n} up`, text: "↑" });
      const down = el("button", { type: "button", class: "button small", "data-fix-action": "down", "aria-label": `Move fix ${n} down`, text: "↓" });
      const remove = el("button", { type: "button", class: "button small danger", "data-fix-action": "delete", "aria-label": `Delete fix ${n}`, text: "Delete" });
      up.disabled = i === 0;
      down.disabled = i === fixes.length - 1;
      up.addEventListener("click", () => move(i, -1, "up"));
      down.addEventListener("click", () => move(i, 1, "down"));
      remove.addEventListener("click", () => removeFix(i));
      const controls = el("div", { class: "fix-controls" }, [select, up, down, remove]);
      const row = el("li", { class: `fix fix-${fix.category}`, "data-fix-index": String(i) }, [
        el("span", { class: "fix-number", text: `${n}.` }), text, controls,
      ]);
      list.appendChild(row);
    });
    if (empty) empty.hidden = fixes.length > 0;
    if (focus) {
      const target = document.querySelector(focus);
      if (target) target.focus();
    }
  }

  // A deleted fix can be brought back where it was until the next deletion.
  function removeFix(i) {
    const [deleted] = fixes.splice(i, 1);
    render();
    changed(`Fix ${i + 1} deleted.`);
    showUndo(`Fix ${i + 1} deleted (“${deleted.text}”)`, () => {
      fixes.splice(Math.min(i, fixes.length), 0, deleted);
      render(`#fix-text-${i + 1}`);
      changed(`Fix ${i + 1} restored.`);
    });
    const next = document.querySelector(`#fix-text-${Math.min(i + 1, fixes.length)}`);
    if (next) next.focus();
    else if (undoButton) undoButton.focus();
  }

  function showUndo(message, restore) {
    if (!undoBar) return;
    undoText.textContent = message;
    undoButton.setAttribute("aria-label", `Undo: ${message}`);
    undoBar.hidden = false;
    undoButton.onclick = () => {
      undoBar.hidden = true;
      restore();
    };
  }

  function move(i, step, direction) {
    const j = i + step;
    if (j < 0 || j >= fixes.length) return;
    [fixes[i], fixes[j]] = [fixes[j], fixes[i]];
    const button = `#fixes-list [data-fix-index="${j}"] [data-fix-action="${direction}"]`;
    const atEdge = (direction === "up" && j === 0) || (direction === "down" && j === fixes.length - 1);
    render(atEdge ? `#fix-text-${j + 1}` : button);
    changed(`Fix moved to position ${j + 1}.`);
  }

  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = newText.value.trim().slice(0, MAX_TEXT);
    if (!text) {
      announce("Write the fix before adding it.");
      newText.focus();
      return;
    }
    if (fixes.length >= MAX_FIXES) {
      announce(`At most ${MAX_FIXES} fixes.`);
      return;
    }
    fixes.push({ text, category: newCategory.value });
    newText.value = "";
    render();
    changed(`Fix ${fixes.length} added.`);
    newText.focus();
  });

  render();
})();
