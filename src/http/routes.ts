import type { OperationInfo } from './contract.js';

export interface RouteMatch {
  info: OperationInfo;
  params: Record<string, string>;
}

/**
 * The contract's routes, compiled once at start: exact paths in a map, templated paths as
 * regular expressions, most specific first.
 */
export function compileRoutes(operations: Iterable<OperationInfo>) {
  const exact = new Map<string, OperationInfo>();
  const templated: Array<{ method: string; pattern: RegExp; names: string[]; info: OperationInfo; literal: number }> = [];
  for (const info of operations) {
    const method = info.method.toUpperCase();
    if (!info.path.includes('{')) {
      exact.set(`${method} ${info.path}`, info);
      continue;
    }
    const names: string[] = [];
    const source = info.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name) {
          names.push(name);
          return '([^/]+)';
        }
        return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      })
      .join('');
    templated.push({ method, pattern: new RegExp(`^${source}$`), names, info, literal: info.path.replace(/\{[^}]+\}/g, '').length });
  }
  templated.sort((a, b) => b.literal - a.literal);

  return {
    match(method: string, path: string): RouteMatch | null {
      const hit = exact.get(`${method} ${path}`);
      if (hit) return { info: hit, params: {} };
      for (const route of templated) {
        if (route.method !== method) continue;
        const found = route.pattern.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        route.names.forEach((name, i) => {
          const raw = found[i + 1] as string;
          // A segment that is not valid percent-encoding stays as sent: it still names this
          // route (token, scope and then a 404 for an id nothing has).
          try {
            params[name] = decodeURIComponent(raw);
          } catch {
            params[name] = raw;
          }
        });
        return { info: route.info, params };
      }
      return null;
    },
  };
}

export type Routes = ReturnType<typeof compileRoutes>;
