import type { AppContext } from '../context.js';
import type { App } from '../http/types.js';

/**
 * Every module's public API by module name. Each module's face (`<m>/index.ts`) adds its own entry
 * by declaration merging, so this file names no module and a module reaches another only by name.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the faces (declaration merging)
export interface ModuleApis {}
export type ModuleName = keyof ModuleApis;

/** What every module may be given besides its needs: the app's context and the app-wide settings. */
export interface ModuleEnv {
  /** The URL prefix of the API (`/api/v1`), for links a module writes. */
  apiPrefix: string;
  /** Options of modules that have some (tests shrink the announcements' batches). */
  options: ModuleOptions;
}

/** Per-module options; a module with options declares its entry by declaration merging. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the faces (declaration merging)
export interface ModuleOptions {}

/** What a built module hands back to the app. */
export interface BuiltModule<Api> {
  /** What other modules (and tests) may call. */
  api: Api;
  /** Its routes, registered under the API prefix (not in the worker process). */
  routes?: (app: App) => Promise<void>;
  /**
   * Runs once every module is built, before the job queue starts: event subscriptions, payment
   * subjects, dashboard figures and hooks on the modules it needs.
   */
  connect?(): void;
  /** At shutdown, after the job queue stopped and before the database closes (batched writes). */
  close?(): Promise<void>;
}

/**
 * A module: its name, the modules it needs (built before it, passed to `build` by name) and how it
 * is built. The needs of every module form the dependency graph, which has no cycle.
 */
export interface AppModule<N extends ModuleName = ModuleName, D extends ModuleName = ModuleName> {
  name: N;
  needs: readonly D[];
  build(
    ctx: AppContext,
    needs: Pick<ModuleApis, D>,
    env: ModuleEnv,
  ): BuiltModule<ModuleApis[N]> | Promise<BuiltModule<ModuleApis[N]>>;
}

/** Declares a module with its needs checked against what `build` uses. */
export const defineModule = <N extends ModuleName, D extends ModuleName = never>(m: AppModule<N, D>): AppModule<N, D> =>
  m;

/** The modules built in order, their APIs by name; `connect` runs once all are built. */
export interface Assembly {
  apis: ModuleApis;
  built: BuiltModule<unknown>[];
}

/**
 * Builds the modules in the order given, each from the APIs of its needs (which must come before
 * it: the order is the dependency graph's, checked here), then connects them.
 */
export async function assemble(
  ctx: AppContext,
  modules: readonly AppModule<ModuleName, ModuleName>[],
  env: ModuleEnv,
): Promise<Assembly> {
  const apis: Partial<Record<ModuleName, unknown>> = {};
  const built: BuiltModule<unknown>[] = [];
  for (const m of modules) {
    const missing = m.needs.filter((n) => !(n in apis));
    if (missing.length) throw new Error(`module ${m.name} needs ${missing.join(', ')}, which must come before it`);
    const needs = Object.fromEntries(m.needs.map((n) => [n, apis[n]])) as Pick<ModuleApis, ModuleName>;
    const b = await m.build(ctx, needs, env);
    apis[m.name] = b.api;
    built.push(b);
  }
  for (const b of built) b.connect?.();
  return { apis: apis as ModuleApis, built };
}
