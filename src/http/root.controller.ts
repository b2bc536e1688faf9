import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from '../security/authorization/route-acl.decorator';

interface RootRequest {
  headers: Record<string, string | string[] | undefined>;
}
interface RootResponse {
  redirect(status: number, url: string): void;
  json(body: unknown): void;
}

/**
 * `GET /`: a browser is sent to the dashboard; any other client gets where things are. Not part of the
 * REST API (left out of the OpenAPI document), and it shows nothing of the cluster.
 */
@ApiExcludeController()
@Controller()
@PublicRoute()
export class RootController {
  @Get()
  root(@Req() request: RootRequest, @Res() response: RootResponse): void {
    const accept = String(request.headers.accept ?? '');
    if (accept.includes('text/html')) return response.redirect(302, '/ui/');
    response.json({
      service: 'cohort',
      dashboard: '/ui/',
      openapi: '/docs',
      openapiJson: '/docs-json',
      asyncapi: '/docs/asyncapi.json',
      health: '/health/ready',
      metrics: '/metrics',
    });
  }
}
