/* card_reader.c: the one error line of the card's readers (sc_card_reader.h). */
#include "sc_card_reader.h"

#include <stdarg.h>
#include <stdio.h>

void sc__reader_error(sc__card_reader *r, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sc_diag_addf(r->diag, "%s:%d: %s", r->name, (int)node->start_mark.line + 1, msg);
    r->errors++;
}
