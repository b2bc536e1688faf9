import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { CohortConfig } from './config/cohort-config';
import { CohortIoAdapter } from './gateway/cohort-io.adapter';
import { dotGroupSegments } from './http/dot-group-segments';
import { BEARER_SCHEME } from './http/responses/api-errors.decorator';
import { NestPinoLogger } from './logging/nest-pino-logger';
import { QuietStartupLogger } from './logging/quiet-startup-logger';
import { ROOT_LOGGER } from './logging/root-logger.module';
import { SecurityConfig } from './config/security-config';
import { validateEnvironment } from './config/validate-environment';
import { prepareDataDir } from './node/storage/data-dir-preflight';
import { OriginPolicy } from './security/origin/origin-policy';
import { RestSecurityGate } from './security/rest/rest-security.gate';
import { securityProblems } from './security/security-problems';
import { httpsOptionsOf } from './security/tls/https-options';

/**
 * Builds a configured, not yet listening Cohort app from an environment. Shared by main.ts, the e2e
 * tests and the benchmarks, so all three run the same wiring. Rejects with ConfigurationError (naming
 * the bad variables) when the environment does not validate.
 */
export async function createCohortApp(env: Record<string, string | undefined>): Promise<INestApplication> {
  const root = await AppModule.forRoot(env);
  const validated = validateEnvironment(env, securityProblems);
  // One node per DATA_DIR, and one that takes writes: checked before Nest starts, so that a refusal is
  // one line (main.ts) rather than a stack trace. NodeLifecycle releases the lock when the node stops.
  const lock = prepareDataDir(new CohortConfig(validated).dataDir);
  try {
    const app = await NestFactory.create<NestExpressApplication>(root, {
      // TLS_* variables: HTTPS (and so WSS) on PORT; read here because the server is made before any provider.
      httpsOptions: httpsOptionsOf(new SecurityConfig(validated)),
      bufferLogs: true,
      // Fail with the error instead of process.abort(), so main can print the config message and exit 1.
      abortOnError: false,
      // Keep-alive HTTP connections must not hold app.close() open.
      forceCloseConnections: true,
    });
    return configureCohortApp(app);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Logging, body limit, socket.io options and the OpenAPI document: everything that is set on the app, not in modules. */
export function configureCohortApp<App extends INestApplication>(app: App): App {
  app.useLogger(new QuietStartupLogger(new NestPinoLogger(app.get(ROOT_LOGGER))));
  const config = app.get(CohortConfig);
  const express = app as unknown as NestExpressApplication;
  // Express announces itself in `X-Powered-By` on every answer: it tells a scanner what to try, a user nothing.
  express.disable('x-powered-by');
  express.useBodyParser('json', { limit: config.maxPayloadBytes });
  // CORS headers for allowed origins (preflights answered here), then the security gate refuses what
  // CORS alone would only hide from a page: foreign origins, protected mode, missing credentials.
  const origins = app.get(OriginPolicy);
  app.enableCors({
    origin: (origin: string | undefined, callback: (error: Error | null, allow: boolean) => void) =>
      callback(null, origin !== undefined && origins.allows(origin)),
    credentials: true,
    maxAge: 600,
  });
  app.use(dotGroupSegments);
  app.use(app.get(RestSecurityGate).handle);
  app.useWebSocketAdapter(new CohortIoAdapter(app));
  const document = new DocumentBuilder()
    .setTitle('Cohort')
    .setDescription(
      'Consumer-group coordinator: REST API. The socket.io protocol is the AsyncAPI document at /docs/asyncapi.json (and .yaml), described in docs/protocol.md.',
    )
    .setVersion('0.1.0')
    // The Authorize button: a static token of AUTH_TOKENS_FILE or a JWT (docs/security.md).
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'static token or JWT',
        description:
          'With authentication on (AUTH_TOKENS_FILE or AUTH_JWT_*): a static token or a JWT, sent as `Authorization: Bearer <token>` (docs/security.md). Without it, no token is needed.',
      },
      BEARER_SCHEME,
    )
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, document));
  return app;
}
