import { defineModule } from '../module.js';
import { filesRoutes } from './files.routes.js';

/** Signed links to stored files; no API for other modules (they use `ctx.storage` and `ctx.links`). */
export type FilesApi = Record<never, never>;

declare module '../module.js' {
  interface ModuleApis {
    files: FilesApi;
  }
}

export const filesModule = defineModule({
  name: 'files',
  needs: [],
  build(ctx) {
    return { api: {}, routes: filesRoutes(ctx.storage, ctx.links, ctx.clock) };
  },
});
