import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { addMemberWithToken, type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
/** The smallest PNG there is (a 1×1 pixel), as a scanner would save a receipt. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * The Expenses page (issue 57 item 1) over real HTTP, the clock at 2026-11-02: a member adds an
 * expense with a receipt (multipart), lists a month by project, edits and deletes it; a refused
 * form keeps what was typed; an HTML "receipt" is refused; the receipt downloads as an
 * attachment only; a member without money rights sees only their own; an invoiced one is locked.
 */
describe('web app: the Expenses page', function () {
  this.timeout(60_000);
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  let projectId: string;
  let clientId: string;

  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    ({ projectId, clientId } = freelancer(server));
  });

  const cookie = (client: SettingsClient) => [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');

  /** Posts the page's multipart form (its token first, as the page's form sends it), with a file when given. */
  async function send(
    client: SettingsClient,
    action: string,
    fields: Record<string, string>,
    file?: { bytes: Buffer; name: string; type: string },
  ) {
    const csrf = SettingsClient.csrf((await client.get('/app/expenses')).text);
    const form = new FormData();
    form.append('_csrf', csrf);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('receipt', file ? new Blob([file.bytes], { type: file.type }) : new Blob([]), file?.name ?? '');
    const response = await fetch(`${server.url}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookie(client), origin: server.url },
      body: form,
    });
    return {
      status: response.status,
      text: await response.text(),
      headers: response.headers,
    };
  }
  const trainOf = () => ({
    day: '2026-10-20',
    description: 'Train Berlin–Hamburg',
    amount: '49,90',
    projectId,
    billable: '',
    taxCategory: 'S',
    taxRate: '7',
  });
  const listed = () =>
    server.services.expenses.list(OPERATOR, {
      workspaceId: server.workspaceId,
    });

  it('adds an expense with a PNG receipt, lists it in its month, edits it, downloads its receipt, and deletes it', async () => {
    const empty = flat((await owner.get('/app/expenses')).text);
    expect(empty).to.include('<a href="/app/expenses" aria-current="page"');
    expect(empty).to.include('<input id="new-day" name="day" value="2026-11-02" type="date" required');
    expect(empty).to.include('No expense in November 2026.');

    const added = await send(owner, '/app/expenses', trainOf(), {
      bytes: PNG,
      name: 'ticket.png',
      type: 'image/png',
    });
    expect(added.status, added.text.slice(0, 2000)).to.equal(303);
    const [expense] = listed();
    expect(added.headers.get('location')).to.equal(`/app/expenses?month=2026-10#expense-${expense!.id}`);
    expect(expense).to.include({
      description: 'Train Berlin–Hamburg',
      amount: 49.9,
      billable: true,
      projectName: 'Relaunch',
      invoiceId: null,
    });
    expect(expense!.tax).to.deep.equal({ category: 'S', rate: 7 });
    expect(expense!.receipt).to.deep.equal({
      fileName: 'ticket.png',
      mediaType: 'image/png',
      size: PNG.length,
    });

    const page = flat((await owner.get('/app/expenses?month=2026-10')).text);
    expect(page).to.include('Expense added: Train Berlin–Hamburg, €49.90.');
    expect(page).to.match(
      new RegExp(
        `<tr id="expense-${expense!.id}"> <td data-label="Day" class="c-time">20 Oct 2026</td> <td data-label="Description">Train Berlin–Hamburg</td> <td data-label="Project"> Relaunch <span class="hint">· Acme</span> </td> <td data-label="Net amount" class="num">€49.90</td> <td data-label="VAT">7 %</td> <td data-label="Billable">Yes</td>`,
      ),
    );
    expect(page).to.include(`<a href="/app/expenses/${expense!.id}/receipt" download>ticket.png</a>`);
    // The total says what it sums where a phone shows it as one row's cells (their labels).
    expect(page).to.include('<td class="num" data-label="Net amount"><strong>€49.90</strong></td>');
    // Another project's listing of the month has none.
    const other = server.services.catalog.projects.create(server.services.tokens.authenticate(server.ownerToken)!.actor, { name: 'Other' });
    expect(flat((await owner.get(`/app/expenses?month=2026-10&project=${other.id}`)).text)).to.include(
      'No expense of this project in October 2026.',
    );

    // The download: an attachment with its name, its checked type, never sniffed or run.
    const download = await owner.get(`/app/expenses/${expense!.id}/receipt`);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.equal('attachment; filename=ticket.png');
    expect(download.headers.get('content-type')).to.equal('image/png');
    expect(download.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(download.headers.get('content-security-policy')).to.equal('sandbox');
    const bytes = await fetch(`${server.url}/app/expenses/${expense!.id}/receipt`, { headers: { cookie: cookie(owner) } });
    expect(Buffer.from(await bytes.arrayBuffer()).equals(PNG)).to.equal(true);

    // The edit form starts with its values; a save changes them and keeps the receipt.
    const form = flat((await owner.get(`/app/expenses/${expense!.id}`)).text);
    expect(form).to.include('<input id="edit-amount" name="amount" value="49.90" inputmode="decimal" required');
    const saved = await send(owner, `/app/expenses/${expense!.id}`, {
      ...trainOf(),
      amount: '59.90',
      billable: 'false',
      taxCategory: '',
      taxRate: '',
    });
    expect(saved.status, saved.text.slice(0, 2000)).to.equal(303);
    expect(listed()[0]).to.include({
      amount: 59.9,
      billable: false,
      tax: null,
    });
    expect(listed()[0]!.receipt).to.deep.equal({
      fileName: 'ticket.png',
      mediaType: 'image/png',
      size: PNG.length,
    });
    expect(flat((await owner.get('/app/expenses?month=2026-10')).text)).to.include('Expense saved: Train Berlin–Hamburg, €59.90.');

    const deleted = await owner.submit(`/app/expenses/${expense!.id}`, `/app/expenses/${expense!.id}/delete`, {});
    expect(deleted.status).to.equal(303);
    expect(deleted.headers.get('location')).to.equal('/app/expenses?month=2026-10');
    expect(listed()).to.deep.equal([]);
    expect((await owner.get(`/app/expenses/${expense!.id}/receipt`)).status).to.equal(404);
  });

  it('refuses a bad amount at its field keeping what was typed, and an HTML file as a receipt, writing nothing', async () => {
    const bad = await send(
      owner,
      '/app/expenses',
      { ...trainOf(), amount: '49.999' },
      { bytes: PNG, name: 'ticket.png', type: 'image/png' },
    );
    expect(bad.status).to.equal(400);
    const page = flat(bad.text);
    expect(page).to.include(
      '<input id="new-amount" name="amount" value="49.999" inputmode="decimal" required aria-invalid="true" aria-describedby="new-amount-error" />',
    );
    expect(page).to.include(
      '<span class="field-error" id="new-amount-error">Give the net amount as a number above 0 with at most two decimals, such as 12.90.</span>',
    );
    expect(page).to.include('value="Train Berlin–Hamburg"');
    expect(page).to.include('<input id="new-day" name="day" value="2026-10-20"');
    expect(page).to.include('<option value="S" selected>');
    expect(page).to.include('Choose the receipt file again: a refused form cannot keep it.');

    const html = await send(owner, '/app/expenses', trainOf(), {
      bytes: Buffer.from('<!doctype html><script>alert(1)</script>'),
      name: 'receipt.png',
      type: 'image/png',
    });
    expect(html.status).to.equal(400);
    expect(flat(html.text)).to.include(
      '<span class="field-error" id="new-receipt-error">A receipt is taken as a PDF, PNG, JPEG or WebP file: save or scan it as one of those.</span>',
    );
    expect(listed()).to.deep.equal([]);
  });

  it('a member without money rights sees and changes only their own; the owner sees theirs but may not change it', async () => {
    const mine = server.services.expenses.add(
      OPERATOR,
      {
        workspaceId: server.workspaceId,
        authorId: server.ownerId,
        day: '2026-11-01',
        description: 'Owner’s book',
        amount: '30',
        projectId,
      },
      { name: 'book.png', bytes: PNG },
    );
    const { userId } = addMemberWithToken(server.services, server.workspaceId, {
      name: 'Grace',
    });
    const member = new SettingsClient(server);
    await member.setUp(userId, PASSWORD);

    const page = flat((await member.get('/app/expenses')).text);
    expect(page).to.include('No expense in November 2026.');
    expect(page).to.not.include('Owner’s book');
    expect((await member.get(`/app/expenses/${mine.id}`)).status).to.equal(404);
    expect((await member.get(`/app/expenses/${mine.id}/receipt`)).status).to.equal(404);
    expect(
      (
        await send(member, `/app/expenses/${mine.id}`, {
          ...trainOf(),
          description: 'taken',
        })
      ).status,
    ).to.equal(404);

    const added = await send(member, '/app/expenses', {
      ...trainOf(),
      day: '2026-11-02',
      description: 'Taxi',
    });
    expect(added.status).to.equal(303);
    expect(flat((await member.get('/app/expenses')).text)).to.include('<td data-label="Description">Taxi</td>');

    // The owner sees both, with who spent them; the colleague's has no edit link, and a post is refused.
    const theirs = listed().find((e) => e.description === 'Taxi')!;
    const all = flat((await owner.get('/app/expenses')).text);
    expect(all).to.include('<td data-label="By">Grace</td>');
    expect(all).to.not.include(`href="/app/expenses/${theirs.id}"`);
    expect(flat((await owner.get(`/app/expenses/${theirs.id}`)).text)).to.include(
      'This expense is a colleague’s: only its author can change or delete it.',
    );
    expect((await owner.submit('/app/expenses', `/app/expenses/${theirs.id}/delete`, {})).status).to.equal(403);
    expect(listed()).to.have.length(2);
  });

  it('an invoiced expense is locked: its page says so and how it is released, a delete is refused', async () => {
    const expense = server.services.expenses.add(
      OPERATOR,
      {
        workspaceId: server.workspaceId,
        authorId: server.ownerId,
        day: '2026-10-20',
        description: 'Book',
        amount: '30',
        projectId,
      },
      null,
    );
    server.services.invoices.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: server.ownerId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    });
    const page = flat((await owner.get(`/app/expenses/${expense.id}`)).text);
    expect(page).to.include('This expense is on an invoice: it cannot be changed or deleted. Voiding the invoice releases it.');
    expect(page).to.not.include('action="/app/expenses/' + expense.id + '/delete"');
    expect(flat((await owner.get('/app/expenses?month=2026-10')).text)).to.include('<td data-label="Status"> On an invoice </td>');
    const refused = await owner.submit('/app/expenses', `/app/expenses/${expense.id}/delete`, {});
    expect(refused.status).to.equal(409);
    expect(flat(refused.text)).to.include(
      'This expense is on an invoice: it cannot be changed or deleted. Voiding the invoice releases it.',
    );
    expect(listed()).to.have.length(1);
  });

  it('reads at most 2 of a member’s receipts at once: a third is answered busy in words with what was typed kept (429); a form without a file is not held up', async () => {
    const csrf = SettingsClient.csrf((await owner.get('/app/expenses')).text);
    /** An upload that sends its token and the start of its file, then waits (a slow line): it holds a place. */
    const slow = () => {
      const boundary = 'slowreceipt';
      const req = httpRequest(`${server.url}/app/expenses`, {
        method: 'POST',
        headers: {
          cookie: cookie(owner),
          origin: server.url,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      });
      req.on('error', () => {});
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="scan.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      req.write(PNG.subarray(0, 20));
      return req;
    };
    const held = [slow(), slow()];
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const busy = await send(owner, '/app/expenses', trainOf(), {
        bytes: PNG,
        name: 'ticket.png',
        type: 'image/png',
      });
      expect(busy.status).to.equal(429);
      expect(busy.headers.get('retry-after')).to.equal('10');
      const text = flat(busy.text);
      expect(text).to.include(
        'The server is reading other receipts right now (at most 2 of yours at once). Nothing was saved: choose the receipt file again and save in a few seconds.',
      );
      expect(text).to.include('value="Train Berlin–Hamburg"');
      expect(listed()).to.deep.equal([]);
      // Without a file, nothing waits for a place.
      const plain = await send(owner, '/app/expenses', {
        ...trainOf(),
        description: 'Taxi',
      });
      expect(plain.status, plain.text.slice(0, 1000)).to.equal(303);
    } finally {
      for (const req of held) req.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The slow ones gone, their places are free again.
    const added = await send(owner, '/app/expenses', trainOf(), {
      bytes: PNG,
      name: 'ticket.png',
      type: 'image/png',
    });
    expect(added.status, added.text.slice(0, 1000)).to.equal(303);
    expect(listed().map((e) => [e.description, e.receipt?.fileName ?? null])).to.have.deep.members([
      ['Taxi', null],
      ['Train Berlin–Hamburg', 'ticket.png'],
    ]);
  });

  it('an upload cut off mid-file (the client gone) leaves the server answering, and nothing written', async () => {
    const csrf = SettingsClient.csrf((await owner.get('/app/expenses')).text);
    const boundary = 'cutoff';
    const req = httpRequest(`${server.url}/app/expenses`, {
      method: 'POST',
      headers: {
        cookie: cookie(owner),
        origin: server.url,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
    });
    req.on('error', () => {});
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="scan.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    req.write(PNG.subarray(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await owner.get('/app/expenses')).status).to.equal(200);
    expect(listed()).to.deep.equal([]);
  });

  it('speaks German to a German reader, money in German formats', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, {
      language: 'de',
    });
    server.services.expenses.add(
      OPERATOR,
      {
        workspaceId: server.workspaceId,
        authorId: server.ownerId,
        day: '2026-11-01',
        description: 'Fachbuch',
        amount: '1234,5',
        projectId,
      },
      null,
    );
    const page = flat((await owner.get('/app/expenses')).text);
    expect(page).to.include('<h1>Auslagen</h1>');
    expect(page).to.include('<td data-label="Nettobetrag" class="num">1.234,50 €</td>');
    expect(page).to.include('<td data-label="Tag" class="c-time">01.11.2026</td>');
  });
});
