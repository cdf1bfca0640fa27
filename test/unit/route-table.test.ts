import type { Middleware } from 'koa';
import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../server/http/route-table.ts';

const named =
  (name: string): Middleware =>
  (ctx) => {
    ctx.body = name;
  };

function table(): RouteTable {
  const routes = new RouteTable();
  routes.add('get', '/api/v1/transfers/{id}', named('show transfer'));
  routes.add('delete', '/api/v1/transfers/{id}', named('delete transfer'));
  routes.add('post', '/api/v1/transfers/{id}/confirm', named('confirm'));
  routes.add('get', '/api/v1/transfers', named('list'));
  routes.add('get', '/api/v1/chats/{chat_id}/messages', named('messages'));
  routes.add('get', '/api/v1/transfers/latest', named('latest'));
  return routes;
}

/** Which handler the table picks for a method and path, with the params it sets. */
function answer(routes: RouteTable, method: string, path: string) {
  const found = routes.match(path);
  return found && { handler: found.methods.get(method), methods: [...found.methods.keys()], params: found.params };
}

describe('RouteTable', () => {
  it('matches literal paths and templates, with the parameters as sent', () => {
    const routes = table();
    expect(answer(routes, 'GET', '/api/v1/transfers')?.params).toEqual({});
    expect(answer(routes, 'GET', '/api/v1/transfers/a%20b')?.params).toEqual({ id: 'a%20b' });
    expect(answer(routes, 'GET', '/api/v1/chats/c1/messages')?.params).toEqual({ chat_id: 'c1' });
    expect(answer(routes, 'POST', '/api/v1/transfers/t1/confirm')?.params).toEqual({ id: 't1' });
  });

  it('prefers a literal path to a template that also matches it', () => {
    const routes = table();
    const latest = routes.match('/api/v1/transfers/latest')!;
    expect([...latest.methods.keys()]).toEqual(['GET', 'HEAD']);
    expect(latest.params).toEqual({});
  });

  it('ignores one trailing slash, and nothing else', () => {
    const routes = table();
    expect(routes.match('/api/v1/transfers/')).toBeDefined();
    expect(routes.match('/api/v1/transfers/t1/')?.params).toEqual({ id: 't1' });
    expect(routes.match('/api/v1/transfers//')).toBeUndefined();
    expect(routes.match('/api/v1/transfers//confirm')).toBeUndefined();
    expect(routes.match('/API/v1/transfers')).toBeUndefined();
    expect(routes.match('/api/v1/transfers/t1/confirm/x')).toBeUndefined();
  });

  it('keeps every method of a path together, and GET answers HEAD', () => {
    expect(answer(table(), 'HEAD', '/api/v1/transfers/t1')?.methods).toEqual(['GET', 'HEAD', 'DELETE']);
  });

  it('refuses two templates that match the same paths, and a method twice', () => {
    const routes = table();
    expect(() => routes.add('patch', '/api/v1/transfers/{transfer_id}', named('x'))).toThrow(/match the same paths/);
    expect(() => routes.add('delete', '/api/v1/transfers/{id}', named('x'))).toThrow(/two routes/);
  });
});
