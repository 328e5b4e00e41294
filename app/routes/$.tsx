// Any path no other route claims: the catalogue's not_found page (root ErrorBoundary), status 404.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { errorResponse } from '~/lib/http/responses.server.ts';

export function loader({ request }: LoaderFunctionArgs) {
  throw errorResponse(request, 'not_found');
}

export function action({ request }: ActionFunctionArgs) {
  throw errorResponse(request, 'not_found');
}

export default function NotFound() {
  return null;
}
