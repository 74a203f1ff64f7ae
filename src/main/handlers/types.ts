import type { OperationName, OperationResult, ParsedInput } from '../../shared/api';
import type { HandlerServices } from '../engine-services';

export type Handler<K extends OperationName> = (input: ParsedInput<K>, engine: HandlerServices) => Promise<OperationResult<K>> | OperationResult<K>;

/** A domain's slice of the API implementation. */
export type HandlerMap<K extends OperationName> = { [P in K]: Handler<P> };
