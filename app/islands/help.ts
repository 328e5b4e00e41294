// The script of the help center's pages (docs/decisions/041-help-center.md): no React, no Remix, a few
// lines of DOM. "Was this article helpful?" is sent with fetch, so the reader keeps their place; the
// page without it posts the form and comes back with the same answer.
for (const section of document.querySelectorAll<HTMLElement>('[data-help-feedback]')) {
  const form = section.querySelector('form');
  const status = section.querySelector('[data-help-feedback-status]');
  if (!form || !status) continue;
  form.addEventListener('submit', async (event) => {
    const button = (event as SubmitEvent).submitter;
    if (!(button instanceof HTMLButtonElement)) return;
    event.preventDefault();
    const body = new URLSearchParams({ [button.name]: button.value });
    status.textContent = 'Sending…';
    try {
      // The answer to a vote is a redirect back to the article; an error is the article page with its message.
      const res = await fetch(form.action, { method: 'POST', body, redirect: 'manual', credentials: 'same-origin' });
      if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
        for (const b of form.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
        status.textContent = 'Thanks for your feedback.';
        return;
      }
      const page = new DOMParser().parseFromString(await res.text(), 'text/html');
      status.textContent =
        page.querySelector('[data-help-feedback-status]')?.textContent || 'That didn’t work. Try again in a moment.';
    } catch {
      status.textContent = 'That didn’t work. Check your connection and try again.';
    }
  });
}
