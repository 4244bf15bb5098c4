/* The sub-commands of the redist tool, as main (main.c) dispatches to them: each one's
   entry point and help text, in its own file. */
#ifndef REDIST_TOOL_COMMANDS_H
#define REDIST_TOOL_COMMANDS_H

int tool_demo(int argc, char **argv);
int tool_run(int argc, char **argv);
int tool_explain(int argc, char **argv);
int tool_simulate(int argc, char **argv);
int tool_calibrate(int argc, char **argv);
int tool_bench(int argc, char **argv);

extern const char tool_demo_help[], tool_run_help[], tool_explain_help[], tool_simulate_help[],
    tool_calibrate_help[], tool_bench_help[];

#endif
