// Customers, companies and ticket custom fields end to end (docs/product.md#customers-companies-and-ticket-fields):
// from a ticket the agent opens the requester's page (requests, notes with their earlier versions, time zone), finds
// them in the customers list and their company by domain, which an admin names; a customer never
// reaches any of it. An admin defines ticket fields; the sidebar saves them (a value that doesn't
// fit comes back at its field, kept), a solve without a required field is refused, and the CSV
// carries them. With JavaScript and without; axe on every new page; screenshots at 1366 and 375 px.
import { randomUUID } from 'node:crypto';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  signedInContext,
  test,
} from './fixtures.ts';

for (const javaScript of [true, false]) {
  const js = `JavaScript ${javaScript ? 'on' : 'off'}`;

  test(`an agent follows a requester to their page, notes and company; customers can't (${js})`, async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const tag = randomUUID().slice(0, 8);
    const domain = `globex-${tag}.example`;
    const customerEmail = `casey-${tag}@${domain}`;
    const admin = await newContext(browser, { javaScript });
    const a = admin.page;
    const slug = await newWorkspace(a, { label: 'cust' });
    const customer = await signedInContext(browser, customerEmail, { javaScript });
    await customer.page.goto(`/support/${slug}/new`);
    await customer.page.getByLabel('Subject').fill(`Invoice missing ${tag}`);
    await customer.page.getByLabel('Message').fill('Where is my invoice?');
    await customer.page.getByRole('button', { name: 'Submit request' }).click();
    await customer.page.waitForURL(/\/requests\/1$/);

    // From the ticket's sidebar to the customer's page.
    await a.goto(`/w/${slug}/tickets/1`);
    const requesterName = (await a.getByTestId('requester').textContent())?.trim() ?? '';
    await a.getByTestId('requester').getByRole('link').click();
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/customers/[0-9a-f-]{36}$`));
    const customerPage = new URL(a.url()).pathname;
    await expect(a.getByRole('heading', { level: 1 })).toHaveText(requesterName);
    await expect(a.getByTestId('customer-email')).toHaveText(customerEmail);
    await expect(a.getByTestId('customer-tickets')).toContainText(`#1 Invoice missing ${tag}`);
    await expect(a.getByTestId('customer-company')).toHaveText(domain);

    // A note: refused empty (the message at the field), then added, then edited (the first text kept).
    const notes = a.getByRole('region', { name: 'Notes' });
    await notes.getByLabel('New note').fill('   ');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await expect(notes.locator('#note-body-error')).toHaveText('Write a note of 1 to 5,000 characters.');
    await notes.getByLabel('New note').fill('Pays by bank transfer.');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await expect(a.getByRole('status')).toHaveText('Note added.');
    await expect(notes.getByTestId('customer-note')).toContainText('Pays by bank transfer.');
    await notes.getByRole('link', { name: 'Edit this note' }).click();
    await notes.getByLabel('Edit note').fill('Pays by bank transfer, always late.');
    await notes.getByRole('button', { name: 'Save note' }).click();
    await expect(a.getByRole('status')).toHaveText('Note saved.');
    const note = notes.getByTestId('customer-note');
    await expect(note).toContainText('Pays by bank transfer, always late.');
    await expect(note).toContainText('edited by');
    await note.getByText('Earlier versions (1)').click();
    await expect(note.getByRole('listitem')).toContainText('Pays by bank transfer.');

    // Their time zone, and the time there.
    await a.getByLabel('Set their time zone').selectOption('Asia/Tokyo');
    await a.getByRole('button', { name: 'Save time zone' }).click();
    await expect(a.getByTestId('customer-time-zone')).toContainText('Asia/Tokyo');
    await expect(a.getByTestId('customer-time-zone')).toContainText('there now');
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `customer-page-${javaScript ? 'js' : 'nojs'}`);

    // The list, searched by the start of the email address; a search that finds nobody says so.
    await a.goto(`/w/${slug}/customers`);
    await expect(a.getByTestId('customer-row')).toHaveCount(1);
    await a.getByLabel('Search customers').fill(`CASEY-${tag}`);
    await a.getByRole('button', { name: 'Search' }).click();
    await expect(a).toHaveURL(/\?q=CASEY-/);
    await expect(a.getByTestId('customer-row')).toContainText(customerEmail);
    await a.getByLabel('Search customers').fill('nobody-starts-like-this');
    await a.getByRole('button', { name: 'Search' }).click();
    await expect(a.getByTestId('customers-empty')).toContainText('No customer’s name or email starts with');
    await a.getByLabel('Search customers').fill('');
    await a.getByRole('button', { name: 'Search' }).click();
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `customers-${javaScript ? 'js' : 'nojs'}`);

    // The company, by domain; the admin names it, and the name shows in the list.
    await a
      .getByRole('navigation', { name: 'Customers and companies' })
      .getByRole('link', { name: 'Companies' })
      .click();
    await expect(a.getByTestId('company-row')).toHaveCount(1);
    await a.getByTestId('company-row').getByRole('link', { name: domain }).click();
    await expect(a.getByRole('heading', { level: 1 })).toHaveText(domain);
    await expect(a.getByTestId('company-customers')).toContainText(requesterName);
    await expect(a.getByTestId('company-tickets')).toContainText(`#1 Invoice missing ${tag}`);
    await a.getByLabel('Company name').fill(`Globex ${tag}`);
    await a.getByRole('button', { name: 'Save name' }).click();
    await expect(a.getByRole('heading', { level: 1 })).toHaveText(`Globex ${tag}`);
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `company-${javaScript ? 'js' : 'nojs'}`);
    await a.goto(`/w/${slug}/companies?q=${encodeURIComponent(`globex ${tag}`)}`);
    await expect(a.getByTestId('company-row')).toContainText(`Globex ${tag}`);
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `companies-${javaScript ? 'js' : 'nojs'}`);
    // Free mail is no company.
    expect((await a.request.get(`/w/${slug}/companies/gmail.com`)).status()).toBe(404);

    // The customer gets 404 for their own page, the list and the company.
    for (const path of [customerPage, `/w/${slug}/customers`, `/w/${slug}/companies/${domain}`]) {
      const res = await customer.page.goto(path);
      expect(res?.status(), path).toBe(404);
    }
    await Promise.all([admin.context.close(), customer.context.close()]);
  });

  test(`an admin defines ticket fields; the sidebar saves them, a solve waits for the required one, the CSV has them (${js})`, async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const tag = randomUUID().slice(0, 8);
    const admin = await newContext(browser, { javaScript });
    const a = admin.page;
    const slug = await newWorkspace(a, { label: 'fields' });
    const customer = await signedInContext(browser, `fields-customer-${tag}@example.com`, { javaScript });
    await customer.page.goto(`/support/${slug}/new`);
    await customer.page.getByLabel('Subject').fill('Broken kettle');
    await customer.page.getByLabel('Message').fill('It leaks.');
    await customer.page.getByRole('button', { name: 'Submit request' }).click();
    await customer.page.waitForURL(/\/requests\/1$/);

    // The admin adds a dropdown without choices (refused at the field, kept), then with them.
    await a.goto(`/w/${slug}/settings/fields`);
    const add = a.getByRole('region', { name: 'New field' });
    await add.getByLabel('Name').fill('Category');
    await add.getByLabel('Kind').selectOption('dropdown');
    await add.getByLabel('Required to solve a ticket').check();
    await add.getByRole('button', { name: 'Add field' }).click();
    await expect(add.locator('#new-options-error')).toHaveText(
      'List 1 to 50 choices, one a line, each up to 80 characters and none twice.',
    );
    await expect(add.getByLabel('Name')).toHaveValue('Category');
    await add.getByLabel('Choices (dropdown)').fill('Repair\nRefund');
    await add.getByRole('button', { name: 'Add field' }).click();
    await expect(a.getByRole('status')).toHaveText('Field added.');
    await add.getByLabel('Name').fill('Order value');
    await add.getByLabel('Kind').selectOption('number');
    await add.getByRole('button', { name: 'Add field' }).click();
    await expect(a.getByTestId('ticket-field')).toHaveCount(2);
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `ticket-fields-settings-${javaScript ? 'js' : 'nojs'}`);

    // On the ticket: a value that isn't a number comes back at its field, kept.
    await a.goto(`/w/${slug}/tickets/1`);
    const fields = a.getByRole('form', { name: 'Ticket fields' });
    await fields.getByLabel('Order value').fill('twelve');
    await fields.getByRole('button', { name: 'Save fields' }).click();
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/tickets/1/fields$`));
    await expect(a.getByRole('form', { name: 'Ticket fields' }).getByLabel('Order value')).toHaveValue('twelve');
    await expect(a.locator(`[id$="-error"]`).filter({ hasText: 'Enter a number such as 12 or 4.5.' })).toBeVisible();
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `ticket-fields-refused-${javaScript ? 'js' : 'nojs'}`);
    await a.getByRole('form', { name: 'Ticket fields' }).getByLabel('Order value').fill('49.90');
    await a.getByRole('form', { name: 'Ticket fields' }).getByRole('button', { name: 'Save fields' }).click();
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/tickets/1(#fields)?$`));
    await expect(a.getByRole('form', { name: 'Ticket fields' }).getByLabel('Order value')).toHaveValue('49.90');

    // Solving without the required Category: refused, saying which field.
    const refusal = 'Fill in “Category” before solving this ticket.';
    await a.getByLabel('Status', { exact: true }).selectOption('solved');
    if (!javaScript) await a.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(a.getByText(refusal)).toBeVisible();
    await a
      .getByRole('form', { name: 'Ticket fields' })
      .getByLabel('Category (required to solve)')
      .selectOption('Refund');
    await a.getByRole('form', { name: 'Ticket fields' }).getByRole('button', { name: 'Save fields' }).click();
    await expect(a.getByRole('form', { name: 'Ticket fields' }).getByLabel('Category (required to solve)')).toHaveValue(
      'Refund',
    );
    await a.getByLabel('Status', { exact: true }).selectOption('solved');
    if (javaScript) await expect(a.getByTestId('status-progress')).toHaveText('Saved');
    else await a.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(a.getByText(refusal)).toHaveCount(0);
    await a.reload();
    await expect(a.getByLabel('Status', { exact: true })).toHaveValue('solved');
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `ticket-with-fields-${javaScript ? 'js' : 'nojs'}`);

    // The CSV carries each field as a column.
    const csv = await (await a.request.get(`/w/${slug}/export.csv?view=all`)).text();
    const [header, row] = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(header.split(',').slice(-2)).toEqual(['Category', 'Order value']);
    expect(row.split(',').slice(-2)).toEqual(['Refund', '49.90']);
    await Promise.all([admin.context.close(), customer.context.close()]);
  });
}
