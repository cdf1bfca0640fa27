import type { Middleware } from 'koa';

/** A literal path segment, or a parameter (`{id}`) that takes any non-empty segment. */
type Segment = string | { param: string };

interface Route {
  template: string;
  segments: Segment[];
  methods: Map<string, Middleware>;
}

/** What a path matched: its routes' handlers by method, and the parameters as sent (still percent-encoded). */
export interface RouteMatch {
  methods: Map<string, Middleware>;
  params: Record<string, string>;
}

/**
 * The API's routes, matched once per request by a map lookup (paths without parameters) or by
 * comparing segments with the few templates of the same length, where a router of regular
 * expressions tried every route in turn (bench/README.md#api). A literal path wins over a template
 * that also matches it. Matching is case-sensitive, and one trailing slash is ignored, as the
 * contract's paths have none. A GET route answers HEAD too (Koa sends no body for HEAD).
 */
export class RouteTable {
  private readonly literal = new Map<string, Map<string, Middleware>>();
  private readonly templates = new Map<number, Route[]>();

  /** `template` as the contract writes it: `/api/v1/accounts/{id}`. */
  add(method: string, template: string, handler: Middleware): void {
    const segments: Segment[] = template
      .split('/')
      .map((part) => (/^\{\w+\}$/.test(part) ? { param: part.slice(1, -1) } : part));
    let methods: Map<string, Middleware> | undefined;
    if (segments.every((segment) => typeof segment === 'string')) {
      methods = this.literal.get(template);
      if (!methods) this.literal.set(template, (methods = new Map()));
    } else {
      const sameLength = this.templates.get(segments.length) ?? [];
      this.templates.set(segments.length, sameLength);
      const shape = shapeOf(template);
      const same = sameLength.find((route) => shapeOf(route.template) === shape);
      // Both would match the same paths, and the first would hide the second.
      if (same && same.template !== template) throw new Error(`${template} and ${same.template} match the same paths`);
      methods = same?.methods;
      if (!methods) sameLength.push({ template, segments, methods: (methods = new Map()) });
    }
    const upper = method.toUpperCase();
    if (methods.has(upper)) throw new Error(`two routes for ${upper} ${template}`);
    methods.set(upper, handler);
    if (upper === 'GET' && !methods.has('HEAD')) methods.set('HEAD', handler);
  }

  match(rawPath: string): RouteMatch | undefined {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const literal = this.literal.get(path);
    if (literal) return { methods: literal, params: {} };
    const parts = path.split('/');
    for (const route of this.templates.get(parts.length) ?? []) {
      const params = matchSegments(route.segments, parts);
      if (params) return { methods: route.methods, params };
    }
    return undefined;
  }

  /**
   * Answers a request with the handler of its path and method (`ctx.params` set); a known path with
   * another method is a 405 with `Allow` (an OPTIONS request: 200 with `Allow`); an unknown path goes
   * on to the next middleware.
   */
  middleware(): Middleware {
    return (ctx, next) => {
      const found = this.match(ctx.path);
      if (!found) return next();
      const handler = found.methods.get(ctx.method);
      if (handler) {
        ctx.params = found.params;
        return handler(ctx, next);
      }
      ctx.set('Allow', [...found.methods.keys()].join(', '));
      ctx.status = ctx.method === 'OPTIONS' ? 200 : 405;
      if (ctx.method === 'OPTIONS') ctx.body = '';
      return undefined;
    };
  }
}

/** The paths a template matches, whatever its parameters are called. */
function shapeOf(template: string): string {
  return template.replace(/\{\w+\}/g, '{}');
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const part = parts[index]!;
    if (typeof segment === 'string') {
      if (segment !== part) return undefined;
    } else {
      if (!part) return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}
