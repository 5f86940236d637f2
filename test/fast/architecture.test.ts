import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * The shape of the house, checked on the source: where SQL may be, which module may import
 * what of another, and which layer may import which. A rule broken names the file and the
 * import that breaks it.
 */
const SRC = join(PACKAGE_ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every import of a source file, resolved to a path under the package (bare packages as they are). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] as string);
  return specifiers.map((s) => (s.startsWith('.') ? relative(PACKAGE_ROOT, resolve(dirname(file), s)).replace(/\.js$/, '.ts') : s));
}

const sources = files(SRC).map((path) => ({ path: relative(PACKAGE_ROOT, path), imports: importsOf(path) }));
const moduleOf = (path: string) => /^src\/modules\/([a-z]+)\//.exec(path)?.[1];
const isRepository = (path: string) => /^src\/modules\/[a-z]+\/repository(\.ts|\/)/.test(path);
const isSchema = (path: string) => /^src\/modules\/[a-z]+\/schema\.ts$/.test(path);

/** The violations of a rule, as "file -> import" lines. */
function violations(rule: (file: string, imported: string) => boolean): string[] {
  return sources.flatMap((source) => source.imports.filter((i) => rule(source.path, i)).map((i) => `${source.path} -> ${i}`));
}

describe('architecture: the shape of src/', () => {
  it('SQL lives in the repositories: only they (and the database layer) use drizzle or the connection', () => {
    // The query builder and the driver: repositories, schemas (their indexes' expressions) and the
    // database layer (connections, migrations, backups, the readiness probe) only.
    const sqlImport = (i: string) => i === 'drizzle-orm' || i === 'better-sqlite3';
    expect(violations((file, i) => sqlImport(i) && !isRepository(file) && !isSchema(file) && !file.startsWith('src/db/'))).to.deep.equal(
      [],
    );
    // Schemas declare tables (drizzle-orm/sqlite-core): nothing else does, but the columns they
    // share (src/db/columns.ts), which declares no table.
    expect(
      violations((file, i) => i.startsWith('drizzle-orm/sqlite-core') && !isSchema(file) && file !== 'src/db/columns.ts'),
    ).to.deep.equal([]);
  });

  it("a module's repository reads and writes its own tables only", () => {
    expect(
      violations((file, i) => isRepository(file) && /^src\/modules\/[a-z]+\/schema\.ts$/.test(i) && moduleOf(i) !== moduleOf(file)),
    ).to.deep.equal([]);
  });

  it('a module reaches another only through its service (and views): never its repository, schema or parts', () => {
    expect(
      violations((file, i) => {
        const from = moduleOf(file);
        const to = moduleOf(i);
        if (!from || !to || from === to || isSchema(file)) return false; // schemas may declare foreign keys
        return !/^src\/modules\/[a-z]+\/(service|views)\.ts$/.test(i);
      }),
    ).to.deep.equal([]);
  });

  it('entry points only translate: http, web, cli, readers and operations hold no repository, schema or SQL', () => {
    const adapters = /^src\/(http|web|cli|threads|operations)\//;
    expect(
      violations((file, i) => adapters.test(file) && (isRepository(i) || isSchema(i) || i === 'drizzle-orm' || i === 'better-sqlite3')),
    ).to.deep.equal([]);
  });

  it('entry points reach a module only through its service, views and errors (issue 61 item 3)', () => {
    // The entry points: the API (http, operations), the pages, the command line, and the threads'
    // entries. The composition roots (src/main.ts, src/server.ts, src/services.ts) wire repositories
    // and may reach further.
    const entry = /^src\/(http|operations|web|cli|threads)\//;
    // Allowed, with why: the document threads are the invoices module's render port (it hands them
    // a checked document to render off the request thread; src/modules/invoices/ports.ts).
    const allowed = (file: string, i: string) =>
      file.startsWith('src/threads/documents/') && i === 'src/modules/invoices/documents/index.ts';
    expect(
      violations(
        (file, i) =>
          entry.test(file) &&
          /^src\/modules\//.test(i) &&
          !/^src\/modules\/[a-z]+\/(service|views|errors)\.ts$/.test(i) &&
          !allowed(file, i),
      ),
    ).to.deep.equal([]);
  });

  it('no import runs back up: modules know no transport, readers and operations know no http', () => {
    const upward: Array<[RegExp, RegExp]> = [
      [/^src\/modules\//, /^src\/(http|web|cli|operations|threads)\/|^src\/(services|server|main)\.ts$/],
      [/^src\/(threads|operations)\//, /^src\/(http|web|cli)\//],
      [/^src\/kernel\//, /^src\/(modules|http|web|cli|operations|threads)\/|^src\/(services|server|main)\.ts$/],
      [/^src\/db\//, /^src\/(modules|http|web|cli|operations|threads)\/|^src\/(services|server|main)\.ts$/],
      // The API reaches the threads only through the reader pool (its heavy reads) and the queue's busy error.
      [/^src\/http\//, /^src\/(web|cli)\/|^src\/threads\/(?!readers\/|queue\.ts$)|^src\/(server|main)\.ts$/],
      // A pool starts its threads by file name; it never imports a thread's entry.
      [/^src\/threads\/(readers|documents)\//, /^src\/threads\/[a-z-]+-thread\.ts$/],
    ];
    expect(violations((file, i) => upward.some(([from, to]) => from.test(file) && to.test(i)))).to.deep.equal([]);
  });

  it('invoice documents are made and checked in one place: no page, command or reader reaches the documents part of the invoices module (issue 45 item 6)', () => {
    // The invoices service's use cases (a document of an invoice, a send) hold the one check; the
    // entry points translate. Only the document threads (src/threads/documents) render, as the render port.
    expect(
      violations(
        (file, i) => /^src\/(http|web|cli|threads\/readers|operations)\//.test(file) && i.startsWith('src/modules/invoices/documents/'),
      ),
    ).to.deep.equal([]);
  });

  it('a doc comment sits on the code it describes: never two in a row, the first left behind when its function moved (issue 48 item 4)', () => {
    const stacked: string[] = [];
    for (const path of files(SRC)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      for (let i = 0; i < lines.length; i += 1) {
        if (!lines[i]!.trim().startsWith('/**')) continue;
        let end = i;
        while (!lines[end]!.includes('*/')) end += 1;
        if (lines[end + 1]?.trim().startsWith('/**')) stacked.push(`${relative(PACKAGE_ROOT, path)}:${i + 1}`);
        i = end;
      }
    }
    expect(stacked).to.deep.equal([]);
  });

  it('every module has its service, and a module with tables its schema and repository', () => {
    for (const module of readdirSync(join(SRC, 'modules'))) {
      const has = (name: string) => sources.some((s) => s.path === `src/modules/${module}/${name}`);
      expect(has('service.ts'), `${module}/service.ts`).to.equal(true);
      if (has('schema.ts')) expect(has('repository.ts'), `${module}/repository.ts`).to.equal(true);
    }
  });

  describe('the pages (src/web): one home, one kit', () => {
    const area = (path: string) => /^src\/web\/(app|settings|auth|invoices)\//.exec(path)?.[1];
    it('the kit and the session import no area', () => {
      expect(violations((file, i) => /^src\/web\/(kit|session)\//.test(file) && area(i) !== undefined)).to.deep.equal([]);
    });
    it('an area never imports another area', () => {
      expect(violations((file, i) => area(file) !== undefined && area(i) !== undefined && area(file) !== area(i))).to.deep.equal([]);
    });
    it('nothing under src/web holds SQL or reaches a repository or schema', () => {
      expect(
        violations(
          (file, i) =>
            file.startsWith('src/web/') && (isRepository(i) || isSchema(i) || i.startsWith('drizzle-orm') || i === 'better-sqlite3'),
        ),
      ).to.deep.equal([]);
    });
    it('no path of the app is typed by hand: src/web/paths.ts names them', () => {
      const typed = sources
        .filter((s) => s.path.startsWith('src/web/') && s.path !== 'src/web/paths.ts')
        .filter((s) => /['"`]\/app[/'"`?]/.test(readFileSync(join(PACKAGE_ROOT, s.path), 'utf8')))
        .map((s) => s.path);
      expect(typed).to.deep.equal([]);
    });
    it('a page says a refusal in a person’s words: src/web shows no DomainError’s message but through the kit’s `spoken`', () => {
      // The message is the API's and the command line's (ids, parameters, commands); `spoken` gives the words for people.
      const shown = sources
        .filter((s) => s.path.startsWith('src/web/') && s.path !== 'src/web/kit/refusal.ts')
        .flatMap((s) =>
          readFileSync(join(PACKAGE_ROOT, s.path), 'utf8')
            .split('\n')
            .map((line, i) => ({ line, at: `${s.path}:${i + 1}` }))
            .filter(({ line }) => /\berror\.message\b/.test(line) && !/logger\.|String\(error\)/.test(line)),
        )
        .map(({ at }) => at);
      expect(shown).to.deep.equal([]);
    });
  });
});
