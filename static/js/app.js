// Page-wide behaviour that needs no inline script.

// Confirm dialogs on [data-confirm] forms and buttons.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});

// The one way an htmx request's failure reaches the person: a 4xx answer is never swapped in (the form keeps
// what was typed); its message is shown next to the form that sent it, in a .htmx-error element with
// role=alert. The server answers a short text/plain message (interview.htmx.htmx_refusal); an HTML page gives
// its [role=alert] text or heading, JSON its "detail" or "error". A later success clears it.
const HTMX_ERROR_MAX_CHARS = 400;

function htmxErrorAnchor(elt) {
  return (elt.closest && elt.closest("form")) || elt;
}

function htmxErrorText(xhr) {
  const status = xhr.status;
  if (status >= 500) {
    return "Something went wrong on our side and nothing was changed. Please try again.";
  }
  const type = (xhr.getResponseHeader("Content-Type") || "").toLowerCase();
  const body = xhr.responseText || "";
  let text = "";
  if (type.includes("json")) {
    try {
      const data = JSON.parse(body);
      text = data.detail || data.error || "";
    } catch (_) {
      text = "";
    }
  } else if (type.includes("html")) {
    const doc = new DOMParser().parseFromString(body, "text/html");
    const found = doc.querySelector("[role=alert], .error-message, h1, title") || doc.body;
    text = found ? found.textContent : "";
  } else {
    text = body;
  }
  text = String(text).replace(/\s+/g, " ").trim();
  if (!text) {
    text = status === 404 ? "That is no longer available." : `The request was refused (${status}).`;
  }
  return text.length > HTMX_ERROR_MAX_CHARS ? `${text.slice(0, HTMX_ERROR_MAX_CHARS)}…` : text;
}

function htmxErrorSlot(anchor, create) {
  const inside = anchor.tagName === "FORM";
  const next = anchor.nextElementSibling;
  let slot = inside
    ? anchor.querySelector(":scope > .htmx-error")
    : next && next.classList.contains("htmx-error") ? next : null;
  if (!slot && create) {
    slot = document.createElement("p");
    slot.className = "htmx-error message error";
    slot.setAttribute("role", "alert");
    if (inside) {
      anchor.append(slot);
    } else {
      anchor.insertAdjacentElement("afterend", slot);
    }
  }
  return slot;
}

function htmxErrorShow(elt, text) {
  htmxErrorSlot(htmxErrorAnchor(elt), true).textContent = text;
}

document.addEventListener("htmx:responseError", (event) => {
  htmxErrorShow(event.detail.elt, htmxErrorText(event.detail.xhr));
});

document.addEventListener("htmx:sendError", (event) => {
  htmxErrorShow(event.detail.elt, "The server could not be reached. Nothing was changed; please try again.");
});

document.addEventListener("htmx:afterRequest", (event) => {
  if (event.detail.successful && event.detail.elt.isConnected) {
    const slot = htmxErrorSlot(htmxErrorAnchor(event.detail.elt), false);
    if (slot) {
      slot.remove();
    }
  }
});

// Phones: a table of four or more columns reads as one card per row, each cell labelled with its column's
// header (app.css, under 600 px). The labels come from the header row here; the roles keep the table a
// table for screen readers once CSS makes its parts blocks. A table with merged body cells is left alone.
const STACK_MIN_COLUMNS = 4;

function tableStack(table) {
  const headRow = table.tHead && table.tHead.rows[0];
  if (!headRow || table.hasAttribute("data-stacks")) return;
  const headers = Array.from(headRow.cells);
  if (headers.length < STACK_MIN_COLUMNS || headers.some((cell) => cell.colSpan > 1)) return;
  const bodyRows = Array.from(table.tBodies).flatMap((body) => Array.from(body.rows));
  if (bodyRows.some((row) => Array.from(row.cells).some((cell) => cell.colSpan > 1 || cell.rowSpan > 1))) return;
  table.setAttribute("data-stacks", "");
  table.setAttribute("role", "table");
  for (const row of [headRow, ...bodyRows]) row.setAttribute("role", "row");
  for (const cell of headers) cell.setAttribute("role", "columnheader");
  for (const row of bodyRows) {
    Array.from(row.cells).forEach((cell, i) => {
      const label = headers[i] ? headers[i].textContent.replace(/\s+/g, " ").trim() : "";
      if (cell.tagName === "TH") cell.setAttribute("role", "rowheader");
      else cell.setAttribute("role", "cell");
      if (label && cell.tagName === "TD") cell.setAttribute("data-label", label);
    });
  }
}

function tablesStack(root) {
  for (const table of root.querySelectorAll ? root.querySelectorAll("main table") : []) tableStack(table);
}

tablesStack(document);
document.addEventListener("htmx:load", () => tablesStack(document));
