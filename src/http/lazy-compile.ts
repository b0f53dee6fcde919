import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Compiled = ((...args: any[]) => any) & { errors?: unknown };

/**
 * Request validators (Ajv) and response serializers (fast-json-stringify) compiled on their
 * first use instead of at start: each route has a few of them (its input, each status it can
 * answer), and compiling all of them took about a third of the start-up time, mostly for
 * error answers rarely sent. `compileAll()` compiles whatever is still pending, for the test
 * that every schema compiles.
 */
export class LazyCompilers {
  private pending = new Set<() => void>();

  wrap<F extends Compiled>(compile: () => F): F {
    let fn: F | undefined;
    const force = () => {
      fn ??= compile();
      this.pending.delete(force);
      return fn;
    };
    this.pending.add(force);
    // Ajv's way of reporting failures (the `errors` property of the function) is what Fastify reads.
    const wrapper = function (this: unknown, ...args: unknown[]) {
      const real = force();
      const out = real.apply(this, args);
      wrapper.errors = real.errors;
      return out;
    } as unknown as F;
    return wrapper;
  }

  /** Fastify's `schemaController.compilersFactory.buildSerializer`: its default compiler, made lazy. */
  serializerFactory() {
    return (externalSchemas: unknown, options: unknown) => {
      const compile = SerializerSelector()(externalSchemas as never, options as never);
      return (route: Parameters<typeof compile>[0]) => this.wrap(() => compile(route) as Compiled);
    };
  }

  compileAll(): number {
    const all = [...this.pending];
    for (const force of all) force();
    return all.length;
  }
}
