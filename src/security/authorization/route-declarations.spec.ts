import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import { AppModule } from '../../app.module';
import type { RestRoute } from '../../../test/support/rest-route';
import { TEST_ENV } from '../../../test/support/test-app';
import { PUBLIC_ROUTE, ROUTE_ACL } from './route-acl.decorator';

/** Paths that need no declaration: probes, the OpenAPI page, the dashboard's static files. */
const EXEMPT = [/^\/health(\/|$)/, /^\/docs/, /^\/ui(\/|$)/];

interface DeclaredRoute extends RestRoute {
  declared: boolean;
}

/** Every controller the app registers, through AppModule and every module it imports. */
function controllersOf(module: DynamicModule | Type, seen = new Set<unknown>()): Type[] {
  if (seen.has(module)) return [];
  seen.add(module);
  const dynamic = (module as DynamicModule).module !== undefined ? (module as DynamicModule) : undefined;
  const type = dynamic ? dynamic.module : (module as Type);
  const controllers: Type[] = [
    ...(dynamic?.controllers ?? []),
    ...((Reflect.getMetadata('controllers', type) as Type[] | undefined) ?? []),
  ];
  const imports: unknown[] = [
    ...(dynamic?.imports ?? []),
    ...((Reflect.getMetadata('imports', type) as unknown[] | undefined) ?? []),
  ];
  return [
    ...controllers,
    ...imports
      .filter(
        (i): i is DynamicModule | Type =>
          typeof i === 'function' || (typeof i === 'object' && i !== null && 'module' in i),
      )
      .flatMap((i) => controllersOf(i, seen)),
  ];
}

function routesOf(controller: Type): DeclaredRoute[] {
  const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const classDeclared =
    Reflect.getMetadata(ROUTE_ACL, controller) !== undefined || Reflect.getMetadata(PUBLIC_ROUTE, controller) === true;
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor' && typeof prototype[name] === 'function')
    .filter((name) => Reflect.getMetadata(PATH_METADATA, prototype[name] as object) !== undefined)
    .map((name) => {
      const handler = prototype[name] as object;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const path =
        `/${[base, String(Reflect.getMetadata(PATH_METADATA, handler))].filter((p) => p !== '' && p !== '/').join('/')}`.replace(
          /\/+/g,
          '/',
        );
      const declared =
        classDeclared ||
        Reflect.getMetadata(ROUTE_ACL, handler) !== undefined ||
        Reflect.getMetadata(PUBLIC_ROUTE, handler) === true;
      return { method, path, declared };
    });
}

describe('REST routes and their ACL declarations', () => {
  let routes: DeclaredRoute[];

  beforeAll(async () => {
    const app = await AppModule.forRoot({ ...TEST_ENV });
    routes = [...new Set(controllersOf(app))].flatMap(routesOf);
  });

  it('finds the routes the app registers', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'GET /v1/groups',
        'DELETE /v1/groups/:groupId',
        'POST /v1/acls',
        'GET /metrics',
        'GET /health/live',
      ]),
    );
  });

  it('has a declaration (@RequireAcl or @PublicRoute) on every route but probes, docs and static assets', () => {
    const undeclared = routes
      .filter((r) => !r.declared && !EXEMPT.some((pattern) => pattern.test(r.path)))
      .map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });
});
