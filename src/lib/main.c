/* libyardstick_main: a main for benchmark programs (-lyardstick_main). */
#include "yardstick.h"

int main(int argc, char **argv)
{
	return ys_main(argc, argv);
}
