import { Logger, Module, type OnModuleInit } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardAssetsDir } from './dashboard-assets';

const assets = dashboardAssetsDir();

/**
 * The web dashboard (docs/dashboard.md): static files under `/ui`, every other `/ui/...` path answered
 * with its index.html. The files are public; the data the page shows comes from REST, with the
 * operator's token and under the same checks as any other client.
 */
@Module({
  imports: [
    ServeStaticModule.forRoot({
      rootPath: assets,
      serveRoot: '/ui',
      serveStaticOptions: {
        index: 'index.html',
        // File names carry no hash: the browser revalidates (ETag) instead of trusting a stale copy.
        cacheControl: true,
        maxAge: 0,
        setHeaders: (response: { setHeader(name: string, value: string): void }) => {
          // Only this origin's scripts, styles and REST: an injected group id cannot become a script.
          response.setHeader(
            'Content-Security-Policy',
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
          );
          response.setHeader('X-Content-Type-Options', 'nosniff');
          response.setHeader('Referrer-Policy', 'no-referrer');
        },
      },
    }),
  ],
})
export class DashboardModule implements OnModuleInit {
  onModuleInit(): void {
    if (!existsSync(join(assets, 'index.html'))) {
      new Logger('Dashboard').warn(
        `the dashboard is not built (${assets} is missing): run \`npm run build\` to serve it at /ui`,
      );
    }
  }
}
