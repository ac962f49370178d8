/** The secrets service's router. Other services import only its type: `import type { SecretsRouter } from '@runbook/secrets/router'`. */
import { resolutionRouter } from './resolution/resolution.router.js';
import { systemParametersRouter } from './system-parameters/system-parameters.router.js';
import { router } from './trpc.js';

/** `systemParameters.*` and `resolution.*`. */
export const secretsRouter = router({
  systemParameters: systemParametersRouter,
  resolution: resolutionRouter,
});

/** The router's type, for typed clients. */
export type SecretsRouter = typeof secretsRouter;
