import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { CohortConfig } from './cohort-config';
import type { EnvironmentVariables } from './environment-variables';
import { type MoreProblems, validateEnvironment } from './validate-environment';

/**
 * Loads and validates the environment through @nestjs/config and provides the typed CohortConfig
 * globally. Async so that a bad value rejects here, in the caller's promise (createCohortApp → main,
 * which prints ConfigurationError's message and exits 1), rather than as an unhandled rejection later.
 * The environment is a parameter so tests and benchmarks can run several nodes in one process without
 * sharing process.env.
 */
@Global()
@Module({})
export class CohortConfigModule {
  static async forRoot(env: Record<string, string | undefined>, more?: MoreProblems): Promise<DynamicModule> {
    let validated!: EnvironmentVariables;
    const configModule = await ConfigModule.forRoot({
      ignoreEnvFile: true,
      validatePredefined: false,
      skipProcessEnv: true,
      validate: () => (validated = validateEnvironment(env, more)),
    });
    return {
      module: CohortConfigModule,
      imports: [configModule],
      providers: [{ provide: CohortConfig, useValue: new CohortConfig(validated) }],
      exports: [CohortConfig],
    };
  }
}
