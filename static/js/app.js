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
