// Page-wide behaviour that needs no inline script: confirm dialogs on [data-confirm] forms and buttons.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
