/*
 * design_names.c: prints the names the contracts (doc/contracts/card.md, gates.md,
 * environment.md) must hold, from the core's own tables,
 * one "<kind> <name>" line each: "card" every card key, "flag" every card flag, "gate"
 * every gate with its class ("gate <name> <class>"), "conf" every gate's run.conf key,
 * "hazard" every row of the inherited environment's hazards (sc_envhazard.h).
 * design_names.sh checks the document against them, so the list cannot go stale.
 */
#include "sc_card.h"
#include "sc_envhazard.h"
#include "sc_gates.h"

#include <stdio.h>

int main(void)
{
    const char *flag;

    for (int f = 0; f < SC_CF_COUNT; f++)
        printf("card %s\n", sc_card_field_name((sc_card_field)f));
    for (size_t i = 0; (flag = sc_card_flag(i, NULL)); i++)
        printf("flag --%s\n", flag);
    for (int g = 0; g < SC_GATE_COUNT; g++) {
        printf("gate %s %s\n", sc_gate_name((sc_gate_id)g),
               sc_gate_class_name(sc_gate_class_of((sc_gate_id)g)));
        printf("conf %s\n", sc_gate_conf_key((sc_gate_id)g));
    }
    for (size_t i = 0; (flag = sc_envhazard_row(i, NULL)); i++)
        printf("hazard %s\n", flag);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
