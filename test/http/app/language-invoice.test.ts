import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { issuerPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, rawWrite, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * One invoice's page in German (issue 58 item 1): a German owner reads the body of a draft with a
 * manual line (its lines, VAT breakdown, totals, the Add a line form) and of an issued invoice
 * with a payment (its facts, payments, the payment form, the send form, the documents) in German
 * words, German money (1.130,50 €), days (02.11.2026) and quantities (2,50 Std.), with none of
 * the English words of these parts left and no message key shown.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`invoicePage.lines.heading`): a namespace of the messages, a dot, a name. */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);
/** The English words of the page's body that German replaces (each as the English page shows it between tags). */
const ENGLISH = [
  '>Lines<',
  '>Description<',
  '>Quantity<',
  '>Net<',
  '>Gross<',
  'No VAT breakdown',
  '>Basis<',
  '>Exemption<',
  '>Client<',
  '>Service period<',
  '>Amount due<',
  '>Rounding<',
  '>Documents<',
  '>Payments<',
  'Recorded by',
  'Still due',
  'Record payment',
  'Received on',
  'Add a line',
  'Price per unit',
  'Send by mail',
  'The mail, as it will be sent',
  'Your message',
  '>Actions<',
  'Each asks you to confirm first',
  'Download the draft',
  'ready to issue',
  '>Remove<',
  ' h<',
  'EUR ',
];

describe('web app: one invoice’s page in German', function () {
  this.timeout(60_000);
  // One server for the file; each test has a fresh workspace and signed-in German owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
  });
  const draftOf = () => {
    const made = freelancer(server);
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    return { ...made, id };
  };
  const englishIn = (text: string) => ENGLISH.filter((word) => text.includes(word));

  it('a draft with a manual line: its lines, breakdown, totals and Add a line form in German words and formats', async () => {
    const { id } = draftOf();
    const page = await owner.get(`/app/invoices/${id}`);
    const added = await owner.post(`/app/invoices/${id}/lines`, {
      _csrf: SettingsClient.csrf(page.text),
      description: 'Fachbuch',
      quantity: '1,5',
      unit: 'C62',
      unitPrice: '33,335',
      taxCategory: 'S',
      taxRate: '7',
    });
    expect(added.status, added.text.slice(0, 500)).to.equal(303);
    const shown = await owner.follow(added, `/app/invoices/${id}`);
    expect(shown.status).to.equal(200);
    const text = flat(shown.text);
    expect(text).to.include('Position 2 hinzugefügt: Fachbuch.');
    expect(text).to.include('<h2>Positionen</h2>');
    expect(text).to.include(
      '<th scope="col">Beschreibung</th> <th scope="col" class="num">Menge</th> <th scope="col" class="num">Satz</th> <th scope="col" class="num">USt.</th> <th scope="col" class="num">Netto</th>',
    );
    // The time line: 10 hours at 95,00 €; the manual line: 1,5 pieces at its exact price.
    expect(text).to.include(
      '<td data-label="Menge" class="num">10,00 Std. <span class="hint">(10:00)</span></td> <td data-label="Satz" class="num"> 95,00 € </td>',
    );
    expect(text).to.include('<td data-label="Menge" class="num">1,5 Stk.</td> <td data-label="Satz" class="num"> 33,335 € </td>');
    expect(text).to.include('<button type="submit" class="danger" aria-label="Position 2 entfernen: Fachbuch"> Entfernen </button>');
    expect(text).to.include('<h2>Umsatzsteuer</h2>');
    expect(text).to.include(
      '<td data-label="Kategorie">S</td> <td data-label="Satz" class="num">7 %</td> <td data-label="Nettobetrag" class="num">50,00 €</td> <td data-label="USt." class="num">3,50 €</td>',
    );
    expect(text).to.include('<dt>Netto</dt> <dd class="num">1.000,00 €</dd> <dt>USt.</dt> <dd class="num">184,00 €</dd>');
    expect(text).to.include('<dt>Brutto</dt> <dd class="num"><strong>1.184,00 €</strong></dd>');
    // The facts: days as 01.10.2026, the document's language by its German name, the rounding.
    expect(text).to.include('<dt>Nummer</dt> <dd>noch keine (wird beim Stellen vergeben)</dd>');
    expect(text).to.include('<dt>Leistungszeitraum</dt> <dd>01.10.2026 – 31.10.2026 <span class="hint inline">(Tage in UTC)</span></dd>');
    expect(text).to.include('<dt>Sprache</dt> <dd>Englisch</dd>');
    expect(text).to.include('keine: die Zeit wie erfasst');
    // The Add a line form, its units and VAT choices in German.
    expect(text).to.include('<h2 id="add-line-heading">Position hinzufügen</h2>');
    expect(text).to.include('<label for="line-price">Preis je Einheit (netto)</label>');
    expect(text).to.include('<option value="LS" >Pauschale (LS)</option>');
    expect(text).to.include('<option value="" selected>Die USt. der Rechnung</option>');
    expect(text).to.include('<button type="submit">Position hinzufügen</button>');
    expect(text).to.include('>Entwurf herunterladen<');
    expect(text).to.include('<span class="badge good">bereit zum Stellen</span>');
    expect(englishIn(text)).to.deep.equal([]);
    expect(keysShown(shown.text)).to.deep.equal([]);
  });

  it('a manual line refused: the reason at its field in German, the API’s status (issue 58 item 2)', async () => {
    const { id } = draftOf();
    const page = await owner.get(`/app/invoices/${id}`);
    const refused = await owner.post(`/app/invoices/${id}/lines`, {
      _csrf: SettingsClient.csrf(page.text),
      description: 'Fachbuch',
      quantity: '1',
      unit: 'C62',
      unitPrice: 'zehn',
      taxCategory: '',
      taxRate: '',
    });
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.include(
      '<span class="field-error" id="line-price-error">Geben Sie den Nettopreis je Einheit als Zahl an, etwa 250 oder 0,30.</span>',
    );
    expect(keysShown(refused.text)).to.deep.equal([]);
  });

  it('a correction of a value that went out in a document: the refusal in German at its field, what to do instead, the API’s status (issue 58 item 1)', async () => {
    const made = freelancer(server, { electronicAddress: null, electronicAddressScheme: null });
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    server.services.invoices.issue(made.owner, id);
    server.services.invoices.fill(made.owner, id, undefined, [
      ['recipient.electronicAddressScheme', 'EM'],
      ['recipient.electronicAddress', 'einkauf@acme.example'],
    ]);
    server.clock.advance(60_000);
    await server.services.invoices.document(made.owner, id, 'xrechnung-ubl');
    const page = await owner.get(`/app/invoices/${id}`);
    const refused = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: SettingsClient.csrf(page.text),
      'recipient.electronicAddressScheme': 'EM',
      'recipient.electronicAddress': 'rechnung@acme.example',
    });
    expect(refused.status).to.equal(409);
    expect(flat(refused.text)).to.include(
      'Dieser Wert ist in einem Dokument dieser Rechnung hinausgegangen (heruntergeladen oder per Mail gesendet) und lässt sich nicht mehr ändern. Um ihn zu korrigieren, stornieren Sie diese Rechnung (ihre Rechnungskorrektur hebt sie auf) und stellen Sie eine neue aus; geben Sie dort den richtigen Wert an.',
    );
    expect(flat(refused.text)).not.to.include('went out in a document');
    expect(keysShown(refused.text)).to.deep.equal([]);
  });

  it('a document that cannot be made though it lacks no value (O mixed with S, BR-O-11): why, in German (issue 58 item 1)', async () => {
    // A register entry identifies the seller where a VAT id cannot (an O invoice carries none): nothing is missing.
    server.services.invoices.setBusinessProfile(OPERATOR, server.workspaceId, { registrationNumber: 'HRB 245678 B' });
    const { id, owner: actor } = draftOf();
    server.services.invoices.issue(actor, id);
    // A state no service makes now (an invoice of an older version): its breakdown mixes O with S.
    const rows = [
      { category: 'S', rate: 19, basisAmount: 500, taxAmount: 95, exemptionReason: null, exemptionReasonCode: null },
      { category: 'O', rate: 0, basisAmount: 450, taxAmount: 0, exemptionReason: 'Nicht steuerbar', exemptionReasonCode: null },
    ];
    rawWrite(server, "update invoices set extras = json_set(extras, '$.taxBreakdown', json(?)) where id = ?", JSON.stringify(rows), id);
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include(
      '<p class="refused">Sie mischt „nicht steuerbar“ (O) mit anderen Umsatzsteuer-Kategorien, und EN 16931 (BR-O-11) erlaubt O nur allein: Stornieren Sie sie und erstellen Sie zwei Rechnungen.</p>',
    );
    expect(text).not.to.include('allows O only alone');
    expect(keysShown(page.text)).to.deep.equal([]);
  });

  it('a value that is there but cannot serve (a VAT id on an invoice not subject to VAT): named in German (issue 58 item 2)', async () => {
    const made = freelancer(server, {
      country: 'US',
      city: 'New York',
      postalCode: '10110',
      addressLines: ['500 Fifth Avenue'],
      taxCategory: 'O',
      exemptionReason: 'Nicht im Inland steuerbare Leistung (§ 3a Abs. 2 UStG)',
    });
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include(
      '<strong>Eine Kennung des Verkäufers, die der Käufer nutzen kann (BR-CO-26; eine Steuernummer, BT-32, ist keine): eine Verkäuferkennung (BT-29: issuer.sellerIdentifier, mit issuer.sellerIdentifierScheme, wenn sie eines hat, z. B. 0088 für eine GLN; ohne Schema z. B. die Lieferantennummer, die Ihr Kunde Ihnen gegeben hat), Ihr Registereintrag (BT-30: issuer.registrationNumber, z. B. HRB 12345 B), die USt-IdNr. (BT-31) kann nicht dienen: Eine nicht steuerbare Rechnung (O) trägt keine</strong>',
    );
    expect(text).not.to.include('An identifier of the seller');
    expect(keysShown(page.text)).to.deep.equal([]);
  });

  it('a draft whose e-invoices lack a value: where to set it and the fill form, in German', async () => {
    const made = freelancer(server, { reference: null, electronicAddress: null, electronicAddressScheme: null });
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<span class="badge bad">werden 2 Werte fehlen</span>');
    expect(text).to.include(
      // The value named, not a pronoun: the names it follows are of every gender (die Käuferreferenz, der Ort, das Land).
      'setzen Sie den Wert beim Kunden im <a href="/app/catalog">Katalog</a> (für neue Rechnungen), oder ergänzen Sie den Wert unten für diese Rechnung',
    );
    expect(text).to.include('<h2 id="fill-heading">Fehlende Werte der E-Rechnung ergänzen</h2>');
    expect(text).to.include('<button type="submit">Werte speichern</button>');
    // The fill form names each value in German, with its EN 16931 number (issue 58 item 5).
    expect(text).to.include('aria-label="E-Rechnungs-Werte"');
    expect(text).to.include('Käuferreferenz (BT-10) <span class="hint inline">(recipient.reference)</span>');
    expect(text).to.include('Elektronische Adresse des Käufers (BT-49) <span class="hint inline">(recipient.electronicAddress)</span>');
    // The missing values' own names, by their path and BT number, in German (issue 58): the API keeps the English labels.
    expect(text).to.include(
      '<strong>Käuferreferenz (die Referenz des Kunden; bei öffentlichen Auftraggebern in Deutschland die Leitweg-ID)</strong> <span class="hint inline">(BT-10, <code>recipient.reference</code>)</span>',
    );
    expect(text).to.include(
      '<strong>Elektronische Adresse des Käufers</strong> <span class="hint inline">(BT-49, <code>recipient.electronicAddress</code>)</span>',
    );
    expect(text).not.to.include('Buyer reference (the client');
    const api = server.services.invoices.documents(made.owner, id);
    expect(api.flatMap((d) => d.missing.map((m) => m.label))).to.include(
      "Buyer reference (the client's reference; in German public procurement the Leitweg-ID)",
    );
    for (const english of [
      'set it on the client',
      'fill it below',
      'Fill missing e-invoice values',
      'Save values',
      'E-invoice values',
      'Buyer reference (BT-10)',
      'Buyer electronic address (BT-49)',
    ])
      expect(text).not.to.include(english);
    expect(keysShown(page.text)).to.deep.equal([]);
  });

  it('a plain PDF’s draft (a seller without VAT ID, register entry or seller identifier): why it has no e-invoice, in German', async () => {
    const made = freelancer(server);
    server.services.invoices.setBusinessProfile(
      OPERATOR,
      server.workspaceId,
      issuerPatchOfText(Object.entries({ vatId: '', electronicAddress: '', electronicAddressScheme: '' })),
    );
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include(
      '<strong>Ein einfaches PDF, ohne E-Rechnung.</strong> Der Rechnungssteller dieser Rechnung hat weder USt-IdNr. noch Registereintrag noch Verkäuferkennung (BT-31, BT-30, BT-29)',
    );
    expect(text).to.include(
      'tragen Sie Ihre USt-IdNr., Ihren Registereintrag oder eine Verkäuferkennung im <a href="/settings/workspace">Unternehmensprofil</a> ein (Einstellungen › Arbeitsbereich › Rechnungssteller), für die danach erstellten Rechnungen, oder ergänzen Sie eines unten für diese Rechnung.',
    );
    for (const english of ['A plain PDF, without e-invoice', 'business profile', 'Seller VAT ID']) expect(text).not.to.include(english);
    expect(keysShown(page.text)).to.deep.equal([]);
  });

  it('a new invoice and its preview in German words and formats', async () => {
    const made = freelancer(server);
    const page = await owner.get('/app/invoices/new');
    expect(page.status).to.equal(200);
    const form = flat(page.text);
    expect(form).to.include('<legend>Zeitraum</legend>');
    expect(form).to.include('<option value="project" selected>Eine Position je Projekt</option>');
    expect(form).to.include('>Entwurf anlegen</button>');
    const preview = await owner.post('/app/invoices/new', {
      _csrf: SettingsClient.csrf(page.text),
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'preview',
    });
    expect(preview.status).to.equal(200);
    const text = flat(preview.text);
    expect(text).to.include('4 Einträge vom 01.10.2026 bis 31.10.2026 (Tage in UTC), für Acme, in EUR.');
    expect(text).to.include('<dt>Brutto</dt> <dd class="num"><strong>1.130,50 €</strong></dd>');
    for (const english of ['New invoice', 'Range', 'Create draft', 'entries from', 'A line per project'])
      expect(text).not.to.include(english);
    expect(keysShown(preview.text)).to.deep.equal([]);
  });

  it('an issued invoice with a payment: facts, payments, the payment and send forms in German words and formats', async () => {
    const { id, owner: actor } = draftOf();
    server.services.invoices.issue(actor, id, { date: '2026-11-01' });
    const page = await owner.get(`/app/invoices/${id}`);
    const paid = await owner.post(`/app/invoices/${id}/payments`, {
      _csrf: SettingsClient.csrf(page.text),
      amount: '500,00',
      date: '2026-11-02',
      note: 'Überweisung 4711',
    });
    expect(paid.status, (flat(paid.text).match(/field-error[^<]*<|notice error[^<]*</g) ?? []).join(' | ')).to.equal(303);
    const shown = await owner.follow(paid, `/app/invoices/${id}`);
    expect(shown.status).to.equal(200);
    const text = flat(shown.text);
    expect(text).to.include('Zahlung über 500,00 €, eingegangen am 02.11.2026, erfasst: 630,50 € sind noch offen.');
    expect(text).to.include('<dt>Rechnungsdatum</dt> <dd>01.11.2026</dd> <dt>Fällig am</dt> <dd>15.11.2026</dd>');
    expect(text).to.include('<dt>Offener Betrag</dt> <dd><strong>630,50 €</strong></dd>');
    expect(text).to.include('<h2 id="payments-heading">Zahlungen</h2>');
    expect(text).to.include(
      '<td data-label="Eingang am" class="c-time">02.11.2026</td> <td data-label="Betrag" class="num"> 500,00 € </td> <td data-label="Notiz">Überweisung 4711</td>',
    );
    expect(text).to.include(
      '<dt>Gesamt</dt> <dd class="num">1.130,50 €</dd> <dt>Bezahlt</dt> <dd class="num">500,00 €</dd> <dt>Noch offen</dt> <dd class="num"><strong>630,50 €</strong></dd>',
    );
    expect(text).to.include('<label for="payment-amount">Betrag (EUR)</label>');
    expect(text).to.include('<button type="submit">Zahlung erfassen</button>');
    expect(text).to.include('<h2 id="documents-heading">Dokumente</h2>');
    expect(text).to.include('>Herunterladen<span class="vh">');
    expect(text).to.include('<h2 id="actions-heading">Aktionen</h2>');
    expect(text).to.include('<p class="hint">Jede fragt zuerst nach Ihrer Bestätigung.</p>');
    expect(text).to.include('<h2>Von</h2>');
    expect(text).to.include('<dt>USt-IdNr.</dt> <dd>DE136695976</dd>');
    expect(englishIn(text)).to.deep.equal([]);
    expect(keysShown(shown.text)).to.deep.equal([]);
    // Voiding it asks in German, with the gross in German money.
    const confirm = flat((await owner.get(`/app/invoices/${id}/void`)).text);
    expect(confirm).to.include('<p>2026-0001 (1.130,50 €) stornieren? Sie erhält eine Rechnungskorrektur');
    expect(confirm).to.include('>Abbrechen</a>');
  });
});
