// wpreport web interface: small progressive enhancements. Everything works without it.
// Served from our own origin; the Content-Security-Policy allows no inline scripts.

document.addEventListener("click", async (event) => {
  // Copy buttons: <button data-copy="#element-id">
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.querySelector(button.getAttribute("data-copy"));
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  } catch {
    // Clipboard refused (insecure context): select the text so the user can copy it.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
});

// Forms that take a while (analyzing a site): show progress and prevent double submits.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-busy")) return;
  const button = form.querySelector("button[type=submit]");
  if (button) {
    button.disabled = true;
    button.textContent = form.getAttribute("data-busy");
  }
  form.setAttribute("aria-busy", "true");
});

// Confirmation for destructive actions: <form data-confirm="…">
document.addEventListener(
  "submit",
  (event) => {
    const form = event.target;
    if (
      form instanceof HTMLFormElement &&
      form.hasAttribute("data-confirm") &&
      !window.confirm(form.getAttribute("data-confirm"))
    ) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  },
  true,
);
