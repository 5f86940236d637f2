import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import type { TestServer } from './server.js';
import { type WireResponse, wire } from './wire.js';

/** A person at the settings page over real HTTP: a cookie jar, form posts, redirects left visible. */
export class SettingsClient {
  readonly jar = new Map<string, string>();
  /**
   * The browser's `Accept-Language`, sent with every request where set; else the client sends
   * `*` (as Node's fetch), which a member without a choice answers in the workspace's language (decisions §14).
   */
  acceptLanguage: string | null = null;
  constructor(
    readonly server: TestServer,
    readonly origin: string | null = server.url,
  ) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private language(): Record<string, string> {
    return this.acceptLanguage === null ? {} : { 'accept-language': this.acceptLanguage };
  }

  private keep(response: WireResponse): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      const name = (pair as string).slice(0, eq);
      const value = (pair as string).slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
    const response = await wire(`${this.server.url}${path}`, {
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...this.language(), ...headers },
    });
    this.keep(response);
    return { status: response.status, text: response.text, headers: response.headers };
  }

  /** Posts a form; `_csrf` is taken from `from` (a page's HTML) unless given. */
  async post(path: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
    const response = await wire(`${this.server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        ...this.language(),
        'content-type': 'application/x-www-form-urlencoded',
        ...(this.origin ? { origin: this.origin } : {}),
        ...headers,
      },
      body,
    });
    this.keep(response);
    return { status: response.status, text: response.text, headers: response.headers };
  }

  /** The CSRF token of the forms on a page. */
  static csrf(html: string): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    expect(token, 'a _csrf field on the page').to.be.a('string');
    return token as string;
  }

  /** Sets the password through a fresh setup link; ends signed in. */
  async setUp(userId: string, password: string, workspaceId = this.server.workspaceId): Promise<void> {
    const link = this.server.services.sessions.invite(OPERATOR, { workspaceId, userId });
    const page = await this.get(`/settings/setup/${link.secret}`);
    expect(page.status).to.equal(200);
    const done = await this.post(`/settings/setup/${link.secret}`, { _csrf: SettingsClient.csrf(page.text), password, confirm: password });
    expect(done.status, done.text).to.equal(303);
    expect(done.headers.get('location')).to.equal('/app/week?welcome=1');
  }

  async signIn(email: string, password: string) {
    const page = await this.get('/settings/sign-in');
    return this.post('/settings/sign-in', { _csrf: SettingsClient.csrf(page.text), email, password });
  }

  /** Follows a form's 303 to the page it names (post/redirect/get), which shows its notice once. */
  async follow(posted: { status: number; headers: Headers; text: string }, to: string) {
    expect(posted.status, posted.text).to.equal(303);
    expect(posted.headers.get('location')).to.equal(to);
    return this.get(to);
  }

  /** Posts a form of a signed-in page with the page's CSRF token. */
  async submit(pagePath: string, action: string, form: Record<string, string | string[]>) {
    const page = await this.get(pagePath);
    expect(page.status, `GET ${pagePath}`).to.equal(200);
    return this.post(action, { _csrf: SettingsClient.csrf(page.text), ...form });
  }
}

export const PASSWORD = 'correct horse battery staple';
